import CivilTime
import Clocks
import Synchronization
import TestSupport
import Testing

/// The tests' one manual clock: its sleeps end only when it is moved, and its wall clock moves
/// with it.
@Suite("Manual clock", .timeLimit(.minutes(1)))
struct ManualClockTests {
    /// Which sleeps have ended.
    final class Woken: Sendable {
        private let names = Mutex<[String]>([])
        var all: [String] { names.withLock { $0 } }
        func add(_ name: String) { names.withLock { $0.append(name) } }
    }

    @Test func sleepsEndWhenTheClockIsMovedPastThem() async throws {
        let clock = ManualClock()
        let woken = Woken()
        Task { try await clock.sleep(for: .seconds(5)); woken.add("5 s") }
        Task { try await clock.sleep(for: .seconds(30)); woken.add("30 s") }
        try await waitUntil("both sleeps") { clock.sleeps == 2 && clock.nextDeadline == .seconds(5) }
        clock.advance(.seconds(4))
        #expect(woken.all.isEmpty)
        clock.advance(.seconds(1))
        try await waitUntil("the 5 s sleep ended") { !woken.all.isEmpty }
        #expect(woken.all == ["5 s"])
        #expect(clock.nextDeadline == .seconds(30))
        clock.advance(.seconds(25))
        try await waitUntil("the 30 s sleep ended") { woken.all.count == 2 }
        #expect(woken.all == ["5 s", "30 s"])
        #expect(clock.nextDeadline == nil)
    }

    @Test func aCancelledSleepEndsAtOnceAndThrows() async throws {
        let clock = ManualClock()
        let woken = Woken()
        let sleeper = Task {
            do {
                try await clock.sleep(for: .seconds(60))
                woken.add("slept")
            } catch {
                woken.add(error is CancellationError ? "cancelled" : "\(error)")
            }
        }
        try await waitUntil("the sleep") { clock.nextDeadline != nil }
        sleeper.cancel()
        try await waitUntil("the sleep ended") { !woken.all.isEmpty }
        #expect(woken.all == ["cancelled"])
        #expect(clock.nextDeadline == nil)
        #expect(clock.now == ManualClock.Instant(offset: .zero))
    }

    @Test func aSleepThatIsDueEndsAtOnce() async throws {
        let clock = ManualClock()
        let woken = Woken()
        Task {
            try await clock.sleep(for: .zero)
            try await clock.sleep(until: clock.now.advanced(by: .seconds(-1)), tolerance: nil)
            woken.add("both")
        }
        try await waitUntil("both sleeps ended") { !woken.all.isEmpty }
        #expect(clock.sleeps == 2)
    }

    @Test func theWallClockMovesWithIt() {
        let clock = ManualClock(wall: UTCTime(secondsSince1970: 1_795_248_000))
        #expect(clock.wall.now() == UTCTime(secondsSince1970: 1_795_248_000))
        clock.advance(.milliseconds(1500))
        #expect(clock.wall.now() == UTCTime(millisecondsSince1970: 1_795_248_001_500))
        #expect(ManualClock().wall.now().iso8601 == "2025-12-24T08:00:00Z")
    }
}

@Suite("System clocks")
struct SystemClocksTests {
    @Test func millisecondsRoundDown() {
        #expect(Duration.nanoseconds(1_999_999).milliseconds == 1)
        #expect(Duration.nanoseconds(-1).milliseconds == -1)
        #expect(Duration.milliseconds(-1500).milliseconds == -1500)
        #expect((Duration.seconds(1_795_248_000) + .microseconds(250_900)).milliseconds == 1_795_248_000_250)
    }

    @Test func durationUnitsClampInsteadOfTrapping() {
        #expect(Duration.nanoseconds(1_999_999).microseconds == 1_999)
        #expect(Duration.nanoseconds(-1).microseconds == -1)
        #expect(Duration.seconds(3).nanoseconds == 3_000_000_000)
        #expect(Duration.milliseconds(1500).seconds == 1.5)
        #expect(Duration.seconds(Int64.max).nanoseconds == .max)
        #expect(Duration.seconds(Int64.min).milliseconds == .min)
    }

    @Test func theKernelsClocksDoNotGoBack() {
        let (monotonic, boottime) = (SystemClocks.monotonic(), SystemClocks.boottime())
        #expect(monotonic > .zero && boottime >= monotonic - .seconds(1))
        #expect(SystemClocks.monotonic() >= monotonic)
        #expect(SystemClocks.boottime() >= boottime)
        #expect(SystemClocks.realtime() > .seconds(1_000_000_000))
    }

    @Test func theSystemWallClockIsTheRealtimeClockInMilliseconds() {
        let before = SystemClocks.realtime().milliseconds
        let read = WallClock.system.now().millisecondsSince1970
        let after = SystemClocks.realtime().milliseconds
        #expect(before <= read && read <= after)
    }
}
