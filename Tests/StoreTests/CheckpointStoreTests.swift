import BlueZTesting
import DeterministicRandom
import FTMS
import Foundation
import Testing
import Workout
@testable import Store

/// The SQLite store as the engine's ``SessionCheckpointStore``.
@Suite("Checkpoint store")
struct CheckpointStoreTests {
    /// A real open session from the engine: 100 s of riding.
    static func snapshot(machine: MachineIdentity = Sessions.bike, seed: UInt64 = 1) throws -> SessionSnapshot {
        var engine = SessionEngine(machine: machine, ids: RandomSessionIDs(using: SplitMix64(seed: seed)))
        for second in 0...100 {
            var values = FieldValues()
            values.set(.instantaneousCadence, value: 85)
            values.set(.instantaneousPower, value: 180)
            values.set(.totalDistance, value: Double(1000 + 8 * second))
            _ = engine.ingest(
                DataRecord(kind: .indoorBikeData, values: values),
                at: Timestamp(monotonic: .seconds(second), wallOrigin: Sessions.origin))
        }
        return try #require(engine.snapshot(at: Timestamp(monotonic: .seconds(100), wallOrigin: Sessions.origin)))
    }

    @Test func saveLoadAndRemove() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        let bike = try Self.snapshot()
        let rower = try Self.snapshot(machine: MachineIdentity(name: "SF-Rower-0002", address: "C0:11:22:33:44:02", type: .rower), seed: 2)
        try await store.save(bike)
        try await store.save(rower)
        #expect(try await store.load(machineAddress: bike.machine.address) == bike)
        #expect(try await store.loadAll() == [bike, rower])
        // Survives a restart.
        let reopened = try GatewayStore(directory: directory.path)
        #expect(try await reopened.loadAll() == [bike, rower])
        // A late remove naming another session leaves the checkpoint.
        try await reopened.remove(machineAddress: bike.machine.address, sessionID: rower.sessionID)
        #expect(try await reopened.load(machineAddress: bike.machine.address) == bike)
        try await reopened.remove(machineAddress: bike.machine.address, sessionID: bike.sessionID)
        #expect(try await reopened.load(machineAddress: bike.machine.address) == nil)
        #expect(try await reopened.loadAll() == [rower])
    }

    /// Finishing a session stores it and drops its checkpoint in one transaction.
    @Test func enqueueClosesTheCheckpoint() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        let snapshot = try Self.snapshot()
        try await store.save(snapshot)
        var summary = Sessions.summary(1, offset: 0)
        summary.sessionID = snapshot.sessionID
        try await store.enqueue(summary, machineAddress: snapshot.machine.address)
        #expect(try await store.loadAll().isEmpty)
        #expect(try await store.counts().pending == 1)
    }

    @Test func anUnreadableCheckpointIsAnError() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        try await store.database.write { db in
            try db.execute(sql: "INSERT INTO checkpoints VALUES ('C0:11:22:33:44:09', 'x', '{\"version\":99}', 0)")
        }
        await #expect(throws: StoreError.self) { try await store.loadAll() }
    }

    /// A checkpoint written by the build before the boot was kept (layout 1) still loads after
    /// an upgrade: a ride open across it is restored, not refused.
    @Test func aLayout1CheckpointStillLoads() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        let snapshot = try Self.snapshot()
        var json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(snapshot)) as? [String: Any])
        json["version"] = 1
        json["boot"] = nil
        json["savedWallIsTrue"] = nil
        let body = String(decoding: try JSONSerialization.data(withJSONObject: json), as: UTF8.self)
        try await store.database.write { db in
            try db.execute(
                sql: "INSERT INTO checkpoints VALUES (?, ?, ?, 0)", arguments: [snapshot.machine.address, snapshot.sessionID, body])
        }
        let loaded = try #require(try await store.loadAll().first)
        #expect(loaded.version == 1)
        #expect(loaded.sessionID == snapshot.sessionID)
    }
}
