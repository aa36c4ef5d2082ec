#if canImport(Glibc)
import Glibc
import ProcessOutput
#endif

/// Writes blocks to a file descriptor on a thread of its own, one block in flight.
///
/// `ftms-bridge decode` produces JSON faster than one core can also copy it into the kernel,
/// so the `write` calls run here while the decoder fills the next block: decoding and the
/// kernel's copy overlap on two cores. ``submit(_:)`` returns once the previous block is
/// written, so a caller alternating two buffers never touches one that is being written.
/// A POSIX thread and two semaphores, not Swift concurrency: the handoff is a pointer and
/// a count, per megabyte, with nothing to schedule.
final class BlockWriter: @unchecked Sendable {
    private let descriptor: Int32
    /// Posted by the writer when it is idle (the last block is written), taken by ``submit(_:)``.
    private let idle: UnsafeMutablePointer<sem_t>
    /// Posted by ``submit(_:)`` when ``pending`` holds a block (or nil: stop).
    private let ready: UnsafeMutablePointer<sem_t>
    /// The block being handed over; only touched between the two semaphores.
    private let pending: UnsafeMutablePointer<UnsafeRawBufferPointer?>
    private let failedFlag: UnsafeMutablePointer<Bool>
    private var thread = pthread_t()
    private var running = false

    init(descriptor: Int32) {
        self.descriptor = descriptor
        idle = .allocate(capacity: 1)
        ready = .allocate(capacity: 1)
        pending = .allocate(capacity: 1)
        pending.initialize(to: nil)
        failedFlag = .allocate(capacity: 1)
        failedFlag.initialize(to: false)
        sem_init(idle, 0, 1)
        sem_init(ready, 0, 0)
        let context = Unmanaged.passRetained(self).toOpaque()
        running = pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            let writer = Unmanaged<BlockWriter>.fromOpaque(context).takeRetainedValue()
            writer.loop()
            return nil
        }, context) == 0
        if !running { Unmanaged<BlockWriter>.fromOpaque(context).release() }
    }

    deinit {
        sem_destroy(idle)
        sem_destroy(ready)
        idle.deallocate()
        ready.deallocate()
        pending.deallocate()
        failedFlag.deallocate()
    }

    /// Hands `block` to the writer thread once it has written the previous one. The caller
    /// must leave `block` alone until its next ``submit(_:)`` or ``finish()`` returns.
    func submit(_ block: UnsafeRawBufferPointer) {
        guard running else {
            if !LineOutput.writeAll(block, to: descriptor) { failedFlag.pointee = true }
            return
        }
        while sem_wait(idle) != 0 {}
        pending.pointee = block
        sem_post(ready)
    }

    /// Waits for the last block and stops the thread. Returns false if any write failed
    /// (the reader went away).
    @discardableResult
    func finish() -> Bool {
        if running {
            while sem_wait(idle) != 0 {}
            pending.pointee = nil
            sem_post(ready)
            pthread_join(thread, nil)
            running = false
        }
        return !failedFlag.pointee
    }

    private func loop() {
        while true {
            while sem_wait(ready) != 0 {}
            guard let block = pending.pointee else { return }
            if !failedFlag.pointee, !LineOutput.writeAll(block, to: descriptor) { failedFlag.pointee = true }
            sem_post(idle)
        }
    }
}
