import DeterministicRandom
import FTMS
import Foundation
import Testing
import Workout

/// Contract §5: a gateway outage (a restart, a frozen daemon, a suspend) is a disconnect
/// the gateway caused. The session carries on if its machine is back within the grace,
/// whatever the idle rule would say about the gap, and the machine's counters across the
/// gap count toward it; a counter that fell back still means a new rider.
@Suite("Gateway outages")
struct GatewayOutageTests {
    /// 30 km/h (8.5 m/s, 85 rpm, 180 W) from a machine whose counters did not start at zero;
    /// its own elapsed time runs with the ride.
    static func riding(_ t: Double) -> [DataField: Double] {
        [
            .instantaneousCadence: 85, .instantaneousPower: 180, .instantaneousSpeed: 30,
            .totalDistance: 12_000 + (8.5 * t).rounded(.down), .totalEnergy: 300 + (t / 10).rounded(.down),
            .elapsedTime: 5_000 + t,
        ]
    }

    /// Rules whose idle end (10 s) is shorter than the outages below, so that the idle rule
    /// would end the session if it ran across them: it must not end a session across a gap
    /// the gateway caused.
    static var shortIdle: SessionRules {
        var rules = SessionRules()
        rules.endAfterIdle = .seconds(10)
        return rules
    }

    /// A ride of 0…40 s checkpointed at 40 s (the last checkpoint before the daemon froze), in
    /// a process whose clock is `Ride`'s.
    func checkpointed(rules: SessionRules) throws -> SessionSnapshot {
        var ride = Ride(rules: rules)
        for second in 0...40 { ride.sample(Double(second), Self.riding(Double(second))) }
        let snapshot = try #require(ride.engine.snapshot(at: Ride.time(40)))
        return try JSONDecoder().decode(SessionSnapshot.self, from: JSONEncoder().encode(snapshot))
    }

    /// The new process: its monotonic clock starts at zero at wall time `wall`.
    static func clock(startingAt wall: Double) -> (Double) -> Timestamp {
        { t in Timestamp(monotonic: .milliseconds(Int64(t * 1000)), wall: Ride.origin.adding(nanoseconds: Int64((wall + t) * 1e9))) }
    }

    static func values(_ fields: [DataField: Double]) -> FieldValues {
        var values = FieldValues()
        for (field, value) in fields { values.set(field, value: value) }
        return values
    }

    /// Frozen after the 40 s checkpoint, killed, restarted at 62 s (22 s without the daemon,
    /// the rider riding on), the machine back at 64 s and ridden to 100 s. One session, the
    /// machine's full distance (12 850 − 12 000 = 850 m), the gap counted as movement.
    @Test func aRestartWithinTheGraceIsOneSessionWithTheFullDistance() throws {
        let snapshot = try checkpointed(rules: Self.shortIdle)
        let time = Self.clock(startingAt: 62)
        var (engine, events) = SessionEngine.restoring(snapshot, rules: Self.shortIdle, ids: RandomSessionIDs(using: SplitMix64(seed: 3)), at: time(0))
        var all = Array(events)
        // The restored session is paused, not ended: 22 s is past the 10 s idle end, but the
        // link was down, and only the grace ends a disconnected session.
        #expect(all.map(\.state.description) == ["paused"])
        for t in stride(from: 0.5, through: 2, by: 0.5) { all += engine.tick(at: time(t)) }
        all += engine.connected(at: time(2))
        for second in 2...38 {
            all += engine.ingest(DataRecord(kind: .indoorBikeData, values: Self.values(Self.riding(Double(62 + second)))), at: time(Double(second)))
        }
        all += engine.close(at: time(38), reason: .shutdown)
        #expect(all.map(\.state.description) == ["paused", "resumed", "finished"])
        let summary = try #require(all.last?.summary)
        #expect(summary.sessionID == snapshot.sessionID)
        #expect(summary.totalDistance == 850)
        #expect(summary.totalEnergy == 10)
        // 0…40 s ridden, 40…64 s bridged (the machine's elapsed time rose 24 s), 64…100 s ridden.
        #expect(summary.duration == 100)
        #expect(summary.detail.elapsed == 100)
        // The gap is a dropout for the averages, not effort: the mean power stays the power ridden.
        #expect(summary.detail.averagePower == 180)
    }

    /// Back after the grace (restarted 90 s after the checkpoint): the session is closed at
    /// its last checkpoint, never lost, and what follows is a new session.
    @Test func aRestartAfterTheGraceClosesAtTheLastCheckpoint() throws {
        let snapshot = try checkpointed(rules: Self.shortIdle)
        let time = Self.clock(startingAt: 130)
        var (engine, events) = SessionEngine.restoring(snapshot, rules: Self.shortIdle, ids: RandomSessionIDs(using: SplitMix64(seed: 3)), at: time(0))
        var all = Array(events)
        #expect(all.map(\.state.description) == ["paused", "finished"])
        let closed = try #require(all.last?.summary)
        #expect(closed.sessionID == snapshot.sessionID)
        #expect(closed.detail.endReason == .disconnected)
        #expect(closed.endedAt.iso8601 == "2026-11-21T08:00:40Z")
        #expect(closed.totalDistance == 340)
        #expect(closed.duration == 40)
        all += engine.connected(at: time(2))
        all += engine.ingest(DataRecord(kind: .indoorBikeData, values: Self.values(Self.riding(132))), at: time(2))
        #expect(all.map(\.state.description) == ["paused", "finished", "started"])
        #expect(engine.openSessionID != snapshot.sessionID)
    }

    /// The console was reset while the gateway was down (a new rider): the old session ends
    /// at its last movement and the new rider's ride is a session of its own.
    @Test func countersResetDuringTheOutageMakeTwoSessions() throws {
        let snapshot = try checkpointed(rules: Self.shortIdle)
        let time = Self.clock(startingAt: 62)
        var (engine, events) = SessionEngine.restoring(snapshot, rules: Self.shortIdle, ids: RandomSessionIDs(using: SplitMix64(seed: 3)), at: time(0))
        var all = Array(events)
        all += engine.connected(at: time(2))
        // The new rider started at 55 s on a console reset to zero.
        func newRider(_ t: Double) -> [DataField: Double] {
            [.instantaneousCadence: 80, .instantaneousPower: 150, .instantaneousSpeed: 28,
             .totalDistance: (8 * (t - 55)).rounded(.down), .totalEnergy: ((t - 55) / 12).rounded(.down), .elapsedTime: t - 55]
        }
        for second in 2...90 {
            all += engine.ingest(DataRecord(kind: .indoorBikeData, values: Self.values(newRider(Double(62 + second)))), at: time(Double(second)))
        }
        all += engine.close(at: time(90), reason: .shutdown)
        let summaries = all.compactMap(\.summary)
        #expect(summaries.count == 2)
        let first = try #require(summaries.first)
        #expect(first.sessionID == snapshot.sessionID)
        #expect(first.detail.endReason == .counterFallback)
        // The old rider's distance up to the checkpoint; nothing of the new rider's, no bridge.
        #expect(first.totalDistance == 340)
        #expect(first.duration <= 41)
        let second = try #require(summaries.last)
        #expect(second.sessionID != snapshot.sessionID)
        #expect(all.map(\.state.description).filter { $0 == "started" }.count == 1)
    }

    /// A link drop (not a restart) longer than the idle end and within the grace, ridden
    /// through: one session, the gap's distance and time counted.
    @Test func aDroppedLinkRiddenThroughIsBridged() throws {
        var ride = Ride(rules: Self.shortIdle)
        for second in 0...40 { ride.sample(Double(second), Self.riding(Double(second))) }
        ride.disconnect(40.5)
        for second in 41...60 { ride.tick(Double(second)) }
        ride.connect(61)
        for second in 62...100 { ride.sample(Double(second), Self.riding(Double(second))) }
        ride.close(100)
        #expect(ride.timeline == ["started", "paused:disconnected", "resumed", "finished"])
        let summary = try #require(ride.finished.first)
        #expect(summary.totalDistance == 850)
        #expect(summary.duration == 100)
    }

    /// A gap nobody rode (the counters stand still across it) stays a pause: not movement,
    /// and the idle clock resumes where it stopped rather than counting the outage.
    @Test func aGapNobodyRodeIsNotMovement() throws {
        var ride = Ride(rules: Self.shortIdle)
        for second in 0...40 { ride.sample(Double(second), Self.riding(Double(second))) }
        ride.disconnect(40.5)
        ride.connect(70)
        // Standing still: the counters where they were.
        var still = Self.riding(40)
        still[.instantaneousCadence] = 0
        still[.instantaneousPower] = 0
        still[.instantaneousSpeed] = 0
        ride.sample(71, still)
        #expect(ride.timeline == ["started", "paused:disconnected"])
        // Idle from 40 s, the outage 40.5…70 s not counted: the idle end falls at 79.5 s.
        ride.tick(79)
        #expect(ride.timeline == ["started", "paused:disconnected"])
        ride.tick(80)
        // 41 s of movement is under the 60 s minimum: ended, and dropped as too short.
        #expect(ride.timeline == ["started", "paused:disconnected", "dropped:too_short"])
        let summary = try #require(ride.ended.first)
        #expect(summary.detail.endReason == .idle)
        #expect(summary.duration == 41)
        #expect(summary.totalDistance == 340)
    }

    /// A checkpoint written before `outageSince` existed still decodes and restores.
    @Test func anOlderCheckpointStillRestores() throws {
        var ride = Ride()
        for second in 0...40 { ride.sample(Double(second), Self.riding(Double(second))) }
        ride.disconnect(40.5)
        let snapshot = try #require(ride.engine.snapshot(at: Ride.time(41)))
        var json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(snapshot)) as? [String: Any])
        var session = try #require(json["session"] as? [String: Any])
        #expect(session.removeValue(forKey: "outageSince") != nil)
        json["session"] = session
        let old = try JSONDecoder().decode(SessionSnapshot.self, from: JSONSerialization.data(withJSONObject: json))
        let (engine, events) = SessionEngine.restoring(old, ids: RandomSessionIDs(using: SplitMix64(seed: 3)), at: Self.clock(startingAt: 50)(0))
        // Already paused by the disconnect: nothing to announce, the session still open.
        #expect(events.isEmpty)
        #expect(engine.openSessionID == snapshot.sessionID)
    }
}
