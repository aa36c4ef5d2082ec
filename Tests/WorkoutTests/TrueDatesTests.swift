import DeterministicRandom
import FTMS
import Foundation
import Testing
import Workout

/// contract §5, dates that are true: a session is its monotonic span placed on a true wall
/// clock; a clock that is not true never dates a session as if it were; and the daemon's
/// downtime across a restart is measured on the boot's monotonic clock, or not at all.
///
/// Times are given as the boot's `CLOCK_BOOTTIME` in seconds; the wall clock of a box without a
/// real-time clock reads 2000-01-01 plus that until NTP steps it to the truth, which is
/// ``Ride/origin`` at boottime 1000.
@Suite("True dates")
struct TrueDatesTests {
    static let boot = BootID("6c2d7a5e-0f3b-4b8e-9d1a-3f2e1c0b9a87")
    static let nextBoot = BootID("0e9f8a7b-6c5d-4e3f-8a1b-2c3d4e5f6a7b")
    static let y2000 = UTCTime(secondsSince1970: 946_684_800)
    /// The truth: what the wall clock reads at boottime `t` once it is right.
    static func truth(_ t: Double) -> UTCTime { Ride.origin.adding(nanoseconds: Int64((t - 1000) * 1e9)) }

    /// Boottime `t` with the wall clock at 2000 (not true) or at the truth (true).
    static func time(_ t: Double, synced: Bool, boot: BootID = Self.boot) -> Timestamp {
        let wall = synced ? truth(t) : y2000.adding(nanoseconds: Int64(t * 1e9))
        return Timestamp(monotonic: .milliseconds(Int64((t * 1000).rounded())), wall: wall, wallIsTrue: synced, boot: boot)
    }

    static func riding(_ t: Double) -> FieldValues {
        CheckpointTests.values([.instantaneousCadence: 85, .instantaneousPower: 180, .totalDistance: 8 * t, .totalEnergy: (t / 10).rounded(.down)])
    }

    static func engine(seed: UInt64 = 1) -> SessionEngine {
        SessionEngine(machine: Ride.bike, rules: SessionRules(), ids: RandomSessionIDs(using: SplitMix64(seed: seed)))
    }

    /// The wall clock reads 2000 when the ride starts at boottime 1000 and is stepped to the truth
    /// at 1030: the session, 1000…1120, is dated 08:00:00–08:02:00 on the true clock, not
    /// 2000-01-01, and says nothing of an unsynchronised clock.
    @Test func aSessionStartedBeforeTheSyncIsDatedByIt() throws {
        var engine = Self.engine()
        var events: [SessionEvent] = []
        for t in 1000...1120 {
            events += engine.ingest(DataRecord(kind: .indoorBikeData, values: Self.riding(Double(t - 1000))), at: Self.time(Double(t), synced: t >= 1030))
        }
        let started = try #require(events.first)
        #expect(started.progress.timing?.datesAreTrue == false, "the start was dated by a clock at 2000")
        #expect(engine.progress(at: Self.time(1120, synced: true))?.startedAt == Ride.origin, "the open session is dated anew by the true clock")
        events += engine.close(at: Self.time(1120, synced: true), reason: .stopped)
        let summary = try #require(events.last?.summary)
        #expect(summary.startedAt.iso8601 == "2026-11-21T08:00:00Z")
        #expect(summary.endedAt.iso8601 == "2026-11-21T08:02:00Z")
        #expect(summary.endedAt.secondsSince1970 - summary.startedAt.secondsSince1970 == Int64(summary.detail.elapsed))
        #expect(!summary.detail.clockUnsynchronised)
        #expect(!summary.jsonString.contains("unsynchronised"))
        #expect(events.last?.progress.timing == SessionTiming(boot: Self.boot, start: .seconds(1000), datesAreTrue: true))
    }

    /// A session that never saw a true clock is dated by the clock it had, and says so: its
    /// timing keeps where it lay on the boot's clock, so the store can date it later.
    @Test func aSessionThatNeverSawATrueClockSaysSo() throws {
        var engine = Self.engine()
        var events: [SessionEvent] = []
        for t in 1000...1090 { events += engine.ingest(DataRecord(kind: .indoorBikeData, values: Self.riding(Double(t - 1000))), at: Self.time(Double(t), synced: false)) }
        events += engine.close(at: Self.time(1091, synced: false), reason: .stopped)
        let summary = try #require(events.last?.summary)
        #expect(summary.startedAt == Self.y2000.adding(seconds: 1000))
        #expect(summary.detail.clockUnsynchronised)
        #expect(summary.jsonString.contains(#""clock":"unsynchronised""#))
        let decoded = try SessionSummary(json: summary.jsonString)
        #expect(decoded == summary)
        #expect(events.last?.progress.timing == SessionTiming(boot: Self.boot, start: .seconds(1000), datesAreTrue: false))
    }

    /// A ride checkpointed at boottime 1100 while the wall clock still read 2000.
    func checkpointed(synced: Bool = false) throws -> (engine: SessionEngine, snapshot: SessionSnapshot) {
        var engine = Self.engine()
        for t in 1000...1100 { _ = engine.ingest(DataRecord(kind: .indoorBikeData, values: Self.riding(Double(t - 1000))), at: Self.time(Double(t), synced: synced)) }
        let snapshot = try #require(engine.snapshot(at: Self.time(1100, synced: synced)))
        let decoded = try JSONDecoder().decode(SessionSnapshot.self, from: JSONEncoder().encode(snapshot))
        #expect(decoded == snapshot)
        #expect(decoded.boot == Self.boot)
        return (engine, decoded)
    }

    /// The clock is stepped from 2000 to the truth, and the daemon is killed and restarted 2 s
    /// later in the same boot: 2 s of downtime on `CLOCK_BOOTTIME`, not 26 years on the wall
    /// clock. The session carries on, one session for the whole ride, truly dated.
    @Test func aStepThenARestartIsTwoSecondsOfDowntime() throws {
        let (engine, snapshot) = try checkpointed()
        var (restored, events) = SessionEngine.restoring(snapshot, ids: RandomSessionIDs(using: SplitMix64(seed: 9)), at: Self.time(1102, synced: true))
        #expect(events.map(\.state.description) == ["paused"])
        #expect(restored.openSessionID == engine.openSessionID)
        var all = Array(events)
        all += restored.connected(at: Self.time(1103, synced: true))
        for t in 1104...1160 { all += restored.ingest(DataRecord(kind: .indoorBikeData, values: Self.riding(Double(t - 1000))), at: Self.time(Double(t), synced: true)) }
        all += restored.close(at: Self.time(1160, synced: true), reason: .stopped)
        #expect(all.compactMap(\.summary).count == 1)
        let summary = try #require(all.last?.summary)
        #expect(summary.sessionID == snapshot.sessionID)
        #expect(summary.startedAt.iso8601 == "2026-11-21T08:00:00Z")
        #expect(summary.detail.elapsed == 160)
        #expect(summary.totalDistance == 1280, "the distance ridden across the 2 s counts")
    }

    /// The same boot, restarted long after the grace: ended where the checkpoint left it.
    @Test func aRestartInTheSameBootAfterTheGraceEnds() throws {
        let (_, snapshot) = try checkpointed()
        let (restored, events) = SessionEngine.restoring(snapshot, ids: RandomSessionIDs(using: SplitMix64(seed: 9)), at: Self.time(1300, synced: false))
        #expect(events.map(\.state.description) == ["paused", "finished"])
        #expect(restored.openSessionID == nil)
    }

    /// An 80 s power cut (grace 60 s): the box boots again with its wall clock behind the
    /// checkpoint's. How long it was down cannot be known, so the session ends where the
    /// checkpoint left it, dated as it was, and the next rider's movement opens a new session
    /// rather than being merged into it.
    @Test func aRebootWithTheClockBehindDoesNotMergeTwoRiders() throws {
        let (_, snapshot) = try checkpointed(synced: true)
        let behind = Timestamp(monotonic: .seconds(20), wall: Self.truth(1100).adding(seconds: -3600), wallIsTrue: false, boot: Self.nextBoot)
        var (restored, events) = SessionEngine.restoring(snapshot, ids: RandomSessionIDs(using: SplitMix64(seed: 9)), at: behind)
        #expect(events.map(\.state.description) == ["paused", "finished"])
        #expect(restored.openSessionID == nil)
        let first = try #require(events.last?.summary)
        #expect(first.sessionID == snapshot.sessionID)
        #expect(first.startedAt.iso8601 == "2026-11-21T08:00:00Z", "dated as it was before the cut")
        #expect(first.endedAt.iso8601 == "2026-11-21T08:01:40Z")
        #expect(first.detail.endReason == .disconnected)
        // The next rider, 5 s after the boot: a new session, on the new boot's clock.
        var next: [SessionEvent] = []
        for t in 25...100 {
            let wall = Self.truth(1100).adding(seconds: -3600 + t - 20)
            let time = Timestamp(monotonic: .seconds(Int64(t)), wall: wall, wallIsTrue: false, boot: Self.nextBoot)
            next += restored.ingest(DataRecord(kind: .indoorBikeData, values: Self.riding(Double(t - 25))), at: time)
        }
        #expect(next.first?.state.description == "started")
        #expect(next.first?.sessionID != snapshot.sessionID)
        #expect(next.first?.progress.timing == SessionTiming(boot: Self.nextBoot, start: .seconds(25), datesAreTrue: false))
    }

    /// A reboot with a true clock on both sides, 30 s apart: within the grace, carried on.
    @Test func aRebootWithTrueClocksOnBothSidesCarriesOn() throws {
        let (_, snapshot) = try checkpointed(synced: true)
        let after = Timestamp(monotonic: .seconds(20), wall: Self.truth(1130), wallIsTrue: true, boot: Self.nextBoot)
        var (restored, events) = SessionEngine.restoring(snapshot, ids: RandomSessionIDs(using: SplitMix64(seed: 9)), at: after)
        #expect(events.map(\.state.description) == ["paused"])
        #expect(restored.openSessionID == snapshot.sessionID)
        var all = Array(events)
        for t in 22...40 {
            let time = Timestamp(monotonic: .seconds(Int64(t)), wall: Self.truth(1110 + Double(t)), wallIsTrue: true, boot: Self.nextBoot)
            all += restored.ingest(DataRecord(kind: .indoorBikeData, values: Self.riding(Double(110 + t))), at: time)
        }
        all += restored.close(at: Timestamp(monotonic: .seconds(40), wall: Self.truth(1150), wallIsTrue: true, boot: Self.nextBoot), reason: .stopped)
        let summary = try #require(all.last?.summary)
        #expect(summary.sessionID == snapshot.sessionID)
        #expect(summary.startedAt.iso8601 == "2026-11-21T08:00:00Z")
        #expect(summary.detail.elapsed == 150)
    }

    /// A reboot where either clock was not true: unknown, ended.
    @Test(arguments: [(true, false), (false, true)])
    func aRebootWithoutTrueClocksOnBothSidesEnds(savedTrue: Bool, nowTrue: Bool) throws {
        let (_, snapshot) = try checkpointed(synced: savedTrue)
        let wall = savedTrue ? Self.truth(1130) : Self.y2000.adding(seconds: 1130)
        let after = Timestamp(monotonic: .seconds(20), wall: wall, wallIsTrue: nowTrue, boot: Self.nextBoot)
        let (restored, events) = SessionEngine.restoring(snapshot, ids: RandomSessionIDs(using: SplitMix64(seed: 9)), at: after)
        #expect(events.map(\.state.description) == ["paused", "finished"])
        #expect(restored.openSessionID == nil)
    }

    /// A checkpoint of the layout before the boot was kept (version 1) still restores, its
    /// downtime on the wall clock as then, and one whose wall clock went back ends.
    @Test func aVersion1CheckpointStillRestores() throws {
        let (_, snapshot) = try checkpointed(synced: true)
        var json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(snapshot)) as? [String: Any])
        json["version"] = 1
        json["boot"] = nil
        json["savedWallIsTrue"] = nil
        var session = try #require(json["session"] as? [String: Any])
        session["anchor"] = nil
        session["startWall"] = Self.truth(1000).millisecondsSince1970
        json["session"] = session
        let old = try JSONDecoder().decode(SessionSnapshot.self, from: JSONSerialization.data(withJSONObject: json))
        #expect(old.version == 1 && old.boot == nil)
        let later = Timestamp(monotonic: .seconds(5), wall: Self.truth(1130))
        let (carried, events) = SessionEngine.restoring(old, ids: RandomSessionIDs(using: SplitMix64(seed: 9)), at: later)
        #expect(events.map(\.state.description) == ["paused"])
        #expect(carried.openSessionID == snapshot.sessionID)
        let earlier = Timestamp(monotonic: .seconds(5), wall: Self.truth(1000))
        let (ended, endEvents) = SessionEngine.restoring(old, ids: RandomSessionIDs(using: SplitMix64(seed: 9)), at: earlier)
        #expect(endEvents.map(\.state.description) == ["paused", "finished"])
        #expect(ended.openSessionID == nil)
    }
}
