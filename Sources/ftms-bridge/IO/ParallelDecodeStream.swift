import JSON
import FTMS

#if canImport(Glibc)
import Glibc
import ProcessOutput
#endif

/// Standard input through ``HexLineDecoder``s on several threads to standard output, in order.
///
/// One decoder on one core tops out around 2 M data records a second, and a data record is
/// about 370 bytes of JSON; docs/performance.md's bar is 5 M/s whole-process on a 2-core box,
/// so the decoding itself has to be shared. The main thread only reads: it fills each slot's
/// input buffer in turn with a chunk of whole lines (the partial last line is carried to the
/// next chunk), and hands it over. Each slot's thread decodes its chunk into its own JSON
/// buffer, then waits for its turn (the chunk before has been written), writes, and passes the
/// turn on. Reading is one `read` per chunk, decoding runs on every slot at once, and the
/// output leaves in input order, in one `write` per chunk.
///
/// **Same output as one decoder.** Only error lines carry a line number, and a slot cannot know
/// its chunk's first line number before the chunks before it are decoded. So it decodes as if
/// its chunk started at line 0; if the chunk had no bad line, nothing it printed depends on
/// that, and if it had one, the slot decodes the chunk again at its turn, when the count is
/// known. A line too long for any frame that does not end inside the chunk buffer (more than
/// ``HexLineDecoder/maximumLineLength`` bytes without a newline) ends the parallel part: once
/// every chunk before it is written, the rest of the input, that line included, goes through
/// ``DecodeStream`` with one decoder that carries on the count. `CLITests` and
/// `scripts/bench-decode.sh --compare` check the output byte for byte against one decoder.
///
/// POSIX threads and semaphores, not Swift concurrency: the hand-offs are a pointer and a
/// count per chunk, with nothing to schedule, and the slots block in `write`.
final class ParallelDecodeStream: @unchecked Sendable {
    /// One decoding thread with its input and JSON buffers.
    private final class Slot: @unchecked Sendable {
        let input: UnsafeMutablePointer<UInt8>
        var json: JSONBuffer
        /// The chunk handed over: bytes in ``input``, whether it ends the input, or stop.
        var count = 0
        var last = false
        var stop = false
        /// Posted by the reader when a chunk (or stop) is ready.
        let ready = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
        /// Posted by the slot when its chunk is written and ``input`` may be refilled.
        let free = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
        /// Posted by the previous slot when its chunk is written: this slot may write.
        let turn = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
        var thread = pthread_t()

        init(inputCapacity: Int, jsonCapacity: Int, first: Bool) {
            input = .allocate(capacity: inputCapacity)
            json = JSONBuffer(capacity: jsonCapacity)
            sem_init(ready, 0, 0)
            sem_init(free, 0, 1)
            sem_init(turn, 0, first ? 1 : 0)
        }

        deinit {
            input.deallocate()
            for semaphore in [ready, free, turn] {
                sem_destroy(semaphore)
                semaphore.deallocate()
            }
        }
    }

    let characteristic: Characteristic
    let maximumLineLength: Int
    let chunkBytes: Int
    let output: Int32
    private let slots: [Slot]
    /// Lines written so far and how many were errors; only the slot holding the turn touches them.
    private(set) var lines = 0
    private(set) var failedLines = 0
    /// A write failed (the reader went away): later chunks are decoded but not written.
    private var writeFailed = false

    /// `chunkBytes` must hold a partial line of `maximumLineLength` with room to read after it.
    init(characteristic: Characteristic, threads: Int, chunkBytes: Int = 1 << 18, maximumLineLength: Int = 1 << 16, output: Int32 = 1) {
        precondition(threads >= 1 && chunkBytes > maximumLineLength + 4096)
        self.characteristic = characteristic
        self.maximumLineLength = maximumLineLength
        self.chunkBytes = chunkBytes
        self.output = output
        slots = (0..<threads).map { Slot(inputCapacity: chunkBytes, jsonCapacity: chunkBytes * 4, first: $0 == 0) }
    }

    /// Decodes `input` to its end. Returns an errno when a read fails (what was read before is
    /// decoded and written), like ``DecodeStream/run(_:input:output:)``.
    func run(input descriptor: Int32 = 0) -> Int32? {
        for index in slots.indices { start(index) }
        var readError: Int32?
        var carry = 0  // bytes of a partial line at the start of the next slot's buffer
        var chunk = 0
        var sequentialFrom: (slot: Slot, count: Int)?
        reading: while true {
            let slot = slots[chunk % slots.count]
            while sem_wait(slot.free) != 0 {}
            if chunk > 0, carry > 0 {
                let previous = slots[(chunk - 1) % slots.count]
                memcpy(slot.input, previous.input + previous.count, carry)
            }
            var filled = carry
            var atEnd = false
            while filled < chunkBytes {
                let count = read(descriptor, slot.input + filled, chunkBytes - filled)
                if count < 0 {
                    if errno == EINTR { continue }
                    readError = errno
                    atEnd = true
                    break
                }
                if count == 0 {
                    atEnd = true
                    break
                }
                filled += count
            }
            if atEnd {
                hand(slot, count: filled, last: true)
                break reading
            }
            // Whole lines go now; the partial last line waits for the next chunk.
            var end = filled
            while end > 0, slot.input[end - 1] != UInt8(ascii: "\n") { end -= 1 }
            carry = filled - end
            if carry > maximumLineLength {
                // A line longer than any frame, maybe much longer than a chunk: one decoder
                // takes over from it (see the type's comment).
                hand(slot, count: end, last: false)
                sequentialFrom = (slot, end)
                break reading
            }
            hand(slot, count: end, last: false)
            chunk += 1
        }
        for slot in slots {
            while sem_wait(slot.free) != 0 {}
            slot.stop = true
            sem_post(slot.ready)
            pthread_join(slot.thread, nil)
        }
        if let (slot, start) = sequentialFrom {
            let rest = UnsafeRawBufferPointer(start: slot.input + start, count: carry)
            var decoder = HexLineDecoder(characteristic: characteristic, maximumLineLength: maximumLineLength, linesBefore: lines)
            let failedBefore = failedLines
            readError = DecodeStream.run(&decoder, input: descriptor, output: output, prefix: rest)
            lines = decoder.lineNumber
            failedLines = failedBefore + decoder.failedLines
        }
        return readError
    }

    private func hand(_ slot: Slot, count: Int, last: Bool) {
        slot.count = count
        slot.last = last
        sem_post(slot.ready)
    }

    private func start(_ index: Int) {
        let context = Unmanaged.passRetained(Box(stream: self, index: index)).toOpaque()
        let created = pthread_create(&slots[index].thread, nil, { context in
            guard let context else { return nil }
            let box = Unmanaged<Box>.fromOpaque(context).takeRetainedValue()
            box.stream.work(box.index)
            return nil
        }, context)
        precondition(created == 0, "pthread_create failed: \(created)")
    }

    private final class Box {
        let stream: ParallelDecodeStream
        let index: Int
        init(stream: ParallelDecodeStream, index: Int) {
            self.stream = stream
            self.index = index
        }
    }

    private func work(_ index: Int) {
        let slot = slots[index]
        let next = slots[(index + 1) % slots.count]
        while true {
            while sem_wait(slot.ready) != 0 {}
            if slot.stop { return }
            let chunk = UnsafeRawBufferPointer(start: slot.input, count: slot.count)
            slot.json.removeAll()
            var decoder = decode(chunk, linesBefore: 0, into: &slot.json)
            while sem_wait(slot.turn) != 0 {}
            if decoder.failedLines > 0 {
                // Its error lines need the real line numbers, known now.
                slot.json.removeAll()
                decoder = decode(chunk, linesBefore: lines, into: &slot.json)
                lines = decoder.lineNumber
            } else {
                lines += decoder.lineNumber
            }
            failedLines += decoder.failedLines
            if !writeFailed, slot.json.count > 0 {
                writeFailed = !slot.json.withUnsafeBytes { LineOutput.writeAll($0, to: output) }
            }
            sem_post(next.turn)
            sem_post(slot.free)
        }
    }

    private func decode(_ chunk: UnsafeRawBufferPointer, linesBefore: Int, into json: inout JSONBuffer) -> HexLineDecoder {
        var decoder = HexLineDecoder(characteristic: characteristic, maximumLineLength: maximumLineLength, linesBefore: linesBefore)
        let used = decoder.consume(chunk, into: &json)
        decoder.finish(UnsafeRawBufferPointer(rebasing: chunk[used...]), into: &json)
        return decoder
    }
}
