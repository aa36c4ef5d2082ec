import TestSupport
import DeterministicRandom
import FTMS
import GRDB
import Foundation
import Testing
import Workout
@testable import Store

/// The SQLite store as the engine's ``SessionCheckpointStore``.
@Suite("Checkpoint store")
struct CheckpointStoreTests {
    /// A real open session from the engine: 100 s of riding, from `start` seconds after
    /// ``Sessions/origin``.
    static func snapshot(machine: MachineIdentity = Sessions.bike, seed: UInt64 = 1, start: Int = 0) throws -> SessionSnapshot {
        let origin = Sessions.origin.adding(seconds: start)
        var engine = SessionEngine(machine: machine, ids: RandomSessionIDs(using: SplitMix64(seed: seed)))
        for second in 0...100 {
            var values = FieldValues()
            values.set(.instantaneousCadence, value: 85)
            values.set(.instantaneousPower, value: 180)
            values.set(.totalDistance, value: Double(1000 + 8 * second))
            _ = engine.ingest(
                DataRecord(kind: .indoorBikeData, values: values),
                at: Timestamp(monotonic: .seconds(second), wallOrigin: origin))
        }
        return try #require(engine.snapshot(at: Timestamp(monotonic: .seconds(100), wallOrigin: origin)))
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

    /// `saveAll` writes its rows through cached statements: each row is the one GRDB's
    /// `upsert` of the record writes, byte for byte, new or replacing an older checkpoint.
    @Test func aSavedCheckpointIsTheRowTheRecordsUpsertWrites() async throws {
        let (saved, upserted) = (try TemporaryDirectory(), try TemporaryDirectory())
        let (byStatement, byRecord) = (try GatewayStore(directory: saved.path), try GatewayStore(directory: upserted.path))
        let older = try Self.snapshot(start: 0)
        let newer = try Self.snapshot(start: 5)  // the same session (the same ids), saved 5 s later
        let rower = try Self.snapshot(machine: MachineIdentity(name: "SF-Rower-0002", address: "C0:11:22:33:44:02", type: .rower), seed: 2)
        try await byStatement.saveAll([older, rower])
        try await byStatement.saveAll([newer])
        for snapshot in [older, rower, newer] {
            try await byRecord.write { db in try CheckpointRow(snapshot).upsert(db) }
        }
        let rows: @Sendable (GatewayStore) async throws -> [[String]] = { store in
            try await store.read { db in
                try Row.fetchAll(db, sql: "SELECT session_id, machine_address, snapshot, saved_at, typeof(snapshot), typeof(saved_at) FROM checkpoints ORDER BY session_id")
                    .map { row in
                        (0..<row.count).map { index -> String in
                            let value: DatabaseValue = row[index]
                            return "\(value)"
                        }
                    }
            }
        }
        let written = try await rows(byStatement)
        #expect(written.count == 2 && newer.sessionID == older.sessionID && newer.savedAt != older.savedAt)
        #expect(written == (try await rows(byRecord)))
        #expect(try await byStatement.loadAll().contains(newer))
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

    /// Keyed by session: the machine's next session does not take the place of a checkpoint
    /// whose session is neither stored nor queued (a finished one a full disk refused); the
    /// machine's newest is the one `load` gives, and queueing the older removes only it.
    @Test func aMachinesNextSessionKeepsTheCheckpointBeforeIt() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        let first = try Self.snapshot(seed: 1)
        let next = try Self.snapshot(seed: 2, start: 600)
        #expect(first.machine.address == next.machine.address && first.sessionID != next.sessionID)
        try await store.save(first)
        try await store.save(next)
        #expect(try await store.loadAll() == [first, next])
        #expect(try await store.load(machineAddress: first.machine.address) == next)
        #expect(try await store.checkpointCount() == 2)
        var summary = Sessions.summary(1, offset: 0)
        summary.sessionID = first.sessionID
        try await store.enqueue(summary, machineAddress: first.machine.address)
        #expect(try await store.loadAll() == [next])
    }

    /// A checkpoint arriving after its session was queued is not written: it would bring the
    /// finished session back at the next start.
    @Test func aQueuedSessionsCheckpointIsNotWrittenBack() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        let snapshot = try Self.snapshot()
        var summary = Sessions.summary(1, offset: 0)
        summary.sessionID = snapshot.sessionID
        try await store.enqueue(summary, machineAddress: snapshot.machine.address)
        try await store.save(snapshot)
        #expect(try await store.loadAll().isEmpty)
    }

    @Test func anUnreadableCheckpointIsAnError() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        try await store.database.write { db in
            try db.execute(sql: "INSERT INTO checkpoints (machine_address, session_id, snapshot, saved_at) VALUES ('C0:11:22:33:44:09', 'x', '{\"version\":99}', 0)")
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
