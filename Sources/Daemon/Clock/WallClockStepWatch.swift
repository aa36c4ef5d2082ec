import CClock
import ProcessOutput
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Notices the moment the wall clock is set (NTP's first fix, a step, `date -s`), rather than at
/// the next poll: a `CLOCK_REALTIME` timerfd armed far in the future with
/// `TFD_TIMER_CANCEL_ON_SET`, whose read fails with `ECANCELED` when the clock is set. The
/// clock service is woken then, so sessions waiting for a true clock are dated and go up at
/// once (contract §5).
///
/// ``waitForStep()`` blocks in `poll` on the timerfd and on a pipe that ``stop()`` writes to: the
/// clock service runs it with `onOwnThread`.
final class WallClockStepWatch: Sendable {
    /// What one read of the timerfd said.
    enum ReadOutcome: Equatable {
        /// The wall clock was set: re-arm, and tell.
        case stepped
        /// The timer expired (it is set for 2200): re-arm.
        case expired
        /// Nothing yet (`EAGAIN`, `EINTR`).
        case nothing
        case failed(errno: Int32)
    }

    /// Reads one descriptor into an 8-byte buffer: the result of `read(2)`, and `errno` when -1.
    typealias Reader = @Sendable (Int32) -> (result: Int, errno: Int32)

    static let systemReader: Reader = { descriptor in
        var expirations: UInt64 = 0
        let result = withUnsafeMutableBytes(of: &expirations) { Glibc.read(descriptor, $0.baseAddress, 8) }
        return (result, result < 0 ? errno : 0)
    }

    private let descriptor: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let reader: Reader
    private let stopped = Atomic<Bool>(false)

    /// Opens and arms the timerfd; throws with the reason where the kernel refuses (a seccomp
    /// filter without `@timer`).
    init(reader: @escaping Reader = WallClockStepWatch.systemReader) throws {
        let descriptor = ftms_step_watch_open()
        guard descriptor >= 0 else { throw StepWatchError(description: "timerfd: \(errnoText(errno))") }
        var pipe: [Int32] = [-1, -1]
        guard Glibc.pipe(&pipe) == 0, fcntl(pipe[0], F_SETFD, FD_CLOEXEC) == 0, fcntl(pipe[1], F_SETFD, FD_CLOEXEC) == 0 else {
            let reason = errnoText(errno)
            for end in pipe + [descriptor] where end >= 0 { close(end) }
            throw StepWatchError(description: "pipe: \(reason)")
        }
        self.descriptor = descriptor
        wakeRead = pipe[0]
        wakeWrite = pipe[1]
        self.reader = reader
    }

    /// What a read that returned `result` (with `errno` when -1) means.
    static func decode(result: Int, errno error: Int32) -> ReadOutcome {
        if result >= 0 { return .expired }
        switch error {
        case ECANCELED: return .stepped
        case EAGAIN, EINTR: return .nothing
        default: return .failed(errno: error)
        }
    }

    /// Reads the timerfd once without blocking, re-arming it after a step or an expiry.
    func readOnce() -> ReadOutcome {
        let (result, error) = reader(descriptor)
        let outcome = Self.decode(result: result, errno: error)
        if outcome == .stepped || outcome == .expired, ftms_step_watch_arm(descriptor) != 0 {
            return .failed(errno: errno)
        }
        return outcome
    }

    /// Waits, blocking, until the clock is set or ``stop()`` is called: for `onOwnThread`.
    /// Returns `.stepped`, `.nothing` once stopped, or `.failed`.
    func waitForStep() -> ReadOutcome {
        while !stopped.load(ordering: .acquiring) {
            var fds = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, -1)
            if ready < 0, errno == EINTR { continue }
            if ready < 0 { return .failed(errno: errno) }
            if fds[1].revents != 0 { break }
            switch readOnce() {
            case .stepped: return .stepped
            case .expired, .nothing: continue
            case .failed(let error): return .failed(errno: error)
            }
        }
        return .nothing
    }

    /// Ends ``waitForStep()`` (woken through the pipe), now and for good.
    func stop() {
        guard stopped.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    deinit {
        close(descriptor)
        close(wakeRead)
        close(wakeWrite)
    }
}

struct StepWatchError: Error, CustomStringConvertible {
    let description: String
}
