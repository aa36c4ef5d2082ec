@testable import Daemon
import Testing
import Workout

/// Whether the wall clock tells true dates (contract §5), from readings a test makes up: the
/// kernel's word, steps of wall minus boottime, and the floor no true date is before.
@Suite("Daemon: is the wall clock true")
struct WallClockJudgeTests {
    static let floor = UTCTime(iso8601: "2026-11-01T00:00:00Z") ?? UTCTime(millisecondsSince1970: 0)
    static let y2000 = UTCTime(secondsSince1970: 946_684_800)
    static let now = UTCTime(iso8601: "2026-11-28T09:00:00Z") ?? UTCTime(millisecondsSince1970: 0)
    static let boot = BootID("1b8e3c52-7f0a-4d6e-9b21-5c4f3a2e1d0c")

    /// Boottime `t` seconds, the wall clock at `origin` plus `t`.
    static func reading(_ t: Double, from origin: UTCTime, synchronised: Bool = false) -> WallClockJudge.Reading {
        .init(wall: origin.adding(nanoseconds: Int64(t * 1e9)), boottime: .milliseconds(Int64(t * 1000)), synchronised: synchronised)
    }

    /// 2000-01-01 is never a true date, whatever the kernel says; stepped to now it is.
    @Test func aClockAt2000IsNotTrueUntilItIsStepped() {
        var judge = WallClockJudge(floor: Self.floor)
        var trusted = judge.judge(Self.reading(10, from: Self.y2000))
        #expect(!trusted)
        trusted = judge.judge(Self.reading(11, from: Self.y2000, synchronised: true))
        #expect(!trusted)
        #expect(judge.explanation.hasPrefix("reads 2000-01-01T00:00:11Z, before 2026-11-01"))
        trusted = judge.judge(Self.reading(40, from: Self.now))
        #expect(trusted)
        #expect(judge.trust == .stepped)
        trusted = judge.judge(Self.reading(41, from: Self.now))
        #expect(trusted, "and stays true while it does not move")
    }

    /// A right clock that the kernel does not call synchronised and that never stepped is not
    /// known to be true (this build box: adjtimex says TIME_ERROR); the kernel's word is enough.
    @Test func unsynchronisedAndNeverSteppedIsNotKnown() {
        var judge = WallClockJudge(floor: Self.floor)
        var trusted = judge.judge(Self.reading(10, from: Self.now))
        #expect(!trusted)
        trusted = judge.judge(Self.reading(11, from: Self.now))
        #expect(!trusted)
        trusted = judge.judge(Self.reading(12, from: Self.now, synchronised: true))
        #expect(trusted)
        #expect(judge.trust == .synchronised)
    }

    /// Drift under a second is no step; NTP slews at most half a millisecond a second.
    @Test func driftIsNotAStep() {
        var judge = WallClockJudge(floor: Self.floor)
        var trusted = judge.judge(Self.reading(10, from: Self.now))
        #expect(!trusted)
        trusted = judge.judge(Self.reading(20, from: Self.now.adding(nanoseconds: 900_000_000)))
        #expect(!trusted)
    }

    /// Stepped back an hour behind a session already recorded with true dates: not true, so
    /// the next session is not dated before its predecessor ended.
    @Test func steppedBackBehindARecordedSessionIsNotTrue() {
        var judge = WallClockJudge(floor: Self.floor)
        var trusted = judge.judge(Self.reading(10, from: Self.now, synchronised: true))
        #expect(trusted)
        judge.raise(floor: Self.now.adding(seconds: 600))  // a session ended at boottime 600
        trusted = judge.judge(Self.reading(700, from: Self.now))
        #expect(trusted)
        trusted = judge.judge(Self.reading(701, from: Self.now.adding(seconds: -3600)))
        #expect(!trusted, "an hour back reads before the session's end")
        trusted = judge.judge(Self.reading(710, from: Self.now, synchronised: true))
        #expect(trusted, "NTP steps it right again")
    }

    /// A daemon restarted in the same boot carries on: a clock trusted before it and unmoved is
    /// still true; one stepped while it was down (2000, then now) is seen to have stepped; a
    /// memory of another boot is nothing.
    @Test func aRestartCarriesOnWhatTheBootKnew() {
        var before = WallClockJudge(floor: Self.floor)
        before.judge(Self.reading(10, from: Self.y2000))
        before.judge(Self.reading(20, from: Self.now))
        var after = WallClockJudge(floor: Self.floor, remembering: before.memory(boot: Self.boot))
        var trusted = after.judge(Self.reading(30, from: Self.now))
        #expect(trusted)
        #expect(after.trust == .earlier)

        var untrusted = WallClockJudge(floor: Self.floor)
        untrusted.judge(Self.reading(10, from: Self.y2000))
        var stepped = WallClockJudge(floor: Self.floor, remembering: untrusted.memory(boot: Self.boot))
        trusted = stepped.judge(Self.reading(30, from: Self.now))
        #expect(trusted)
        #expect(stepped.trust == .stepped)

        let other = SystemWallClock(boot: BootID("another"), floor: Self.floor, memory: before.memory(boot: Self.boot), synchronisedFlag: "/nonexistent")
        #expect(other.judge(reading: false).trustedOffset == nil)
    }
}
