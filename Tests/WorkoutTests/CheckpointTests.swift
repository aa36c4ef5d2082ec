import DeterministicRandom
import FTMS
import Foundation
import Testing
import Workout

/// contract §5: the open session is checkpointed and, after a restart, resumed or closed.
@Suite("Checkpoints")
struct CheckpointTests {
    static func riding(_ t: Double) -> [DataField: Double] {
        [.instantaneousCadence: 85, .instantaneousPower: 180, .totalDistance: 1000 + 8 * t, .totalEnergy: 40 + (t / 10).rounded(.down)]
    }

    /// A ride checkpointed at 100 s, through JSON, as the SQLite store will keep it.
    func checkpointedRide() throws -> (ride: Ride, snapshot: SessionSnapshot) {
        var ride = Ride()
        for second in 0...100 { ride.sample(Double(second), Self.riding(Double(second))) }
        let snapshot = try #require(ride.engine.snapshot(at: Ride.time(100)))
        let json = try JSONEncoder().encode(snapshot)
        let decoded = try JSONDecoder().decode(SessionSnapshot.self, from: json)
        #expect(decoded == snapshot)
        #expect(decoded.version == SessionSnapshot.currentVersion)
        #expect(decoded.machine == Ride.bike)
        return (ride, decoded)
    }

    /// The daemon dies at 100 s and is back 30 s later (< 60 s grace) in a new process whose
    /// monotonic clock starts at zero. The session carries on under the same id, and its
    /// counters continue from where they were.
    @Test func aRecentCheckpointResumes() throws {
        let (ride, snapshot) = try checkpointedRide()
        let restartWall = Ride.origin.adding(seconds: 130)
        let time = { (t: Double) in Timestamp(monotonic: .milliseconds(Int64(t * 1000)), wall: restartWall.adding(nanoseconds: Int64(t * 1e9))) }
        var (engine, events) = SessionEngine.restoring(snapshot, ids: RandomSessionIDs(using: SplitMix64(seed: 9)), at: time(0))
        #expect(events.map(\.state.description) == ["paused"])
        #expect(engine.openSessionID == ride.engine.openSessionID)
        var all = Array(events)
        all += engine.connected(at: time(2))
        for second in 3...70 { all += engine.ingest(DataRecord(kind: .indoorBikeData, values: Self.values(Self.riding(Double(130 + second)))), at: time(Double(second))) }
        all += engine.close(at: time(71), reason: .shutdown)
        #expect(all.map(\.state.description) == ["paused", "resumed", "finished"])
        let summary = try #require(all.last?.summary)
        #expect(summary.sessionID == snapshot.sessionID)
        #expect(summary.startedAt.iso8601 == "2026-11-21T08:00:00Z")
        // Before: samples 0…99, 1 s each; sample 100 came with the checkpoint, and nothing
        // is known after it, so it holds for 0 s: 100 s. The outage, 100 … 133 s, was ridden
        // (the distance counter rose 264 m across it: contract §5): 33 s. After: samples
        // 3…70, 68 s.
        #expect(summary.duration == 201)
        // Elapsed runs from 08:00:00 to the close at 130 + 71 = 201 s.
        #expect(summary.detail.elapsed == 201)
        // Distance 1000 + 8·200 − 1000 = 1600 m, ridden in part while the daemon was down.
        #expect(summary.totalDistance == 1600)
        #expect(summary.totalEnergy == 20)
    }

    /// Back after ten minutes: the session is closed at its last movement, never lost.
    @Test func aStaleCheckpointIsClosed() throws {
        let (_, snapshot) = try checkpointedRide()
        let time = Timestamp(monotonic: .seconds(1), wall: Ride.origin.adding(seconds: 700))
        let (engine, events) = SessionEngine.restoring(snapshot, ids: RandomSessionIDs(using: SplitMix64(seed: 9)), at: time)
        #expect(events.map(\.state.description) == ["paused", "finished"])
        #expect(engine.openSessionID == nil)
        let summary = try #require(events.last?.summary)
        #expect(summary.detail.endReason == .disconnected)
        // Movement up to the checkpoint, which is the last thing known: 100 s.
        #expect(summary.duration == 100)
        #expect(summary.endedAt.iso8601 == "2026-11-21T08:01:40Z")
        #expect(summary.totalDistance == 800)
    }

    /// A checkpoint is handed out when a session opens, when its phase changes, and then
    /// every ``SessionRules/checkpointInterval``; none without a session.
    @Test func checkpointsAreDueOnChangeAndInterval() {
        var ride = Ride()
        #expect(ride.engine.checkpointIfDue(at: Ride.time(0)) == nil)
        var due: [Int] = []
        for second in 0...30 {
            ride.sample(Double(second), second < 20 ? Self.riding(Double(second)) : [.instantaneousCadence: 0])
            if ride.engine.checkpointIfDue(at: Ride.time(Double(second))) != nil { due.append(second) }
        }
        // Opened at 0; every 5 s; paused (idle) at 19 + 6 = 25 s: at once, then 30 s.
        #expect(due == [0, 5, 10, 15, 20, 25, 30])
    }

    @Test func theInMemoryStoreKeepsOnePerMachine() async throws {
        let (_, snapshot) = try checkpointedRide()
        let store: any SessionCheckpointStore = InMemoryCheckpointStore()
        try await store.save(snapshot)
        #expect(try await store.load(machineAddress: Ride.bike.address) == snapshot)
        // A late remove for another session leaves the checkpoint alone.
        try await store.remove(machineAddress: Ride.bike.address, sessionID: "not-this-one")
        #expect(try await store.loadAll() == [snapshot])
        try await store.remove(machineAddress: Ride.bike.address, sessionID: snapshot.sessionID)
        #expect(try await store.loadAll().isEmpty)
    }

    static func values(_ fields: [DataField: Double]) -> FieldValues {
        var values = FieldValues()
        for (field, value) in fields { values.set(field, value: value) }
        return values
    }
}
