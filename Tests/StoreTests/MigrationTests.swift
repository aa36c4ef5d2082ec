import TestSupport
import Foundation
import Testing
import Workout
@testable import Store

/// A gateway updated in place keeps everything: a database written by the previous schema
/// (`Fixtures/main-v2.sqlite`, made by the daemon of the build before checkpoints were kept per
/// session: two bikes ridden, one session queued, both machines' next sessions checkpointed,
/// then SIGKILL) opens, migrates, and holds the same device, queue and checkpoints.
@Suite("Store migration")
struct MigrationTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/main-v2.sqlite").path

    /// The fixture's rows, read as another process would, before any migration.
    static func rows(_ path: String, _ sql: String) async throws -> [String] {
        let result = try await runProgram(["/usr/bin/env", "sqlite3", path, sql])
        #expect(result.status == 0)
        return result.standardOutput.split(separator: "\n").map(String.init)
    }

    @Test func aStoreOfTheV2SchemaMigratesToCheckpointsBySession() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file(GatewayStore.fileName)
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: path)
        #expect(try await Self.rows(path, "SELECT identifier FROM grdb_migrations") == ["v1-initial", "v2-session-series"])
        let checkpoints = try await Self.rows(path, "SELECT session_id, machine_address, saved_at FROM checkpoints ORDER BY machine_address")
        let device = try await Self.rows(path, "SELECT device_id FROM device")
        let sessions = try await Self.rows(path, "SELECT session_id, upload_status FROM sessions")
        let series = try await Self.rows(path, "SELECT session_id, finished FROM session_series ORDER BY session_id")
        #expect(checkpoints.count == 2)

        let store = try GatewayStore(directory: directory.path)
        #expect(try await store.appliedMigrations() == StoreSchema.knownMigrations)
        #expect(StoreSchema.knownMigrations.last == "v4-session-dates")
        #expect(try await store.integrityCheck() == ["ok"])
        #expect([store.deviceID] == device)
        #expect(try await store.sessions().map { "\($0.sessionID)|\($0.status.rawValue)" } == sessions)
        let restored = try await store.loadAll()
        #expect(restored.map { "\($0.sessionID)|\($0.machine.address)|\($0.savedAt.millisecondsSince1970)" } == checkpoints)
        #expect(try await Self.rows(path, "SELECT session_id, finished FROM session_series ORDER BY session_id") == series)

        // Now keyed by session: a bike's next session keeps the checkpoint before it.
        let bike = try #require(restored.first)
        let next = try CheckpointStoreTests.snapshot(machine: bike.machine, seed: 7)
        try await store.save(next)
        #expect(Set(try await store.loadAll().map(\.sessionID)) == Set(restored.map(\.sessionID) + [next.sessionID]))
        #expect(try await Self.rows(path, "PRAGMA index_list(checkpoints)").contains { $0.contains("checkpoints_by_machine") })
    }
}
