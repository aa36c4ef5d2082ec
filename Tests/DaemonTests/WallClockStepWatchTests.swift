@testable import Daemon
import Glibc
import Testing

/// The timerfd that notices the wall clock being set (contract §5). A test cannot step the
/// host's clock: the decoding of a read is tested through an injected reader, and the real
/// timerfd is armed and read.
@Suite("Daemon: wall-clock steps noticed")
struct WallClockStepWatchTests {
    @Test func eCanceledIsAStep() {
        #expect(WallClockStepWatch.decode(result: -1, errno: ECANCELED) == .stepped)
        #expect(WallClockStepWatch.decode(result: 8, errno: 0) == .expired)
        #expect(WallClockStepWatch.decode(result: -1, errno: EAGAIN) == .nothing)
        #expect(WallClockStepWatch.decode(result: -1, errno: EINTR) == .nothing)
        #expect(WallClockStepWatch.decode(result: -1, errno: EBADF) == .failed(errno: EBADF))
    }

    /// A read that fails with ECANCELED (what the kernel answers after a step) re-arms the real
    /// timerfd and says "stepped".
    @Test func aStepReadThroughAnInjectedReaderRearms() throws {
        let watch = try WallClockStepWatch(reader: { _ in (-1, ECANCELED) })
        #expect(watch.readOnce() == .stepped)
        #expect(watch.readOnce() == .stepped)
    }

    /// The real timerfd arms (CLOCK_REALTIME, absolute, cancel on set) and reads without error:
    /// nothing pending, as long as nobody sets the clock.
    @Test func theRealTimerfdArmsAndReads() throws {
        let watch = try WallClockStepWatch()
        #expect(watch.readOnce() == .nothing)
    }
}
