import TestSupport
import FTMS
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
        #expect(StoreSchema.knownMigrations.last == "v5-floor-sessions")
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

    /// Rows of the tables the fixture leaves empty, as the previous release wrote them (the
    /// stats in its `jsonString` shape, `null` date included), and two more sessions: one
    /// downloaded and uploaded, without `detail`, one dead with its error.
    static let previousReleaseRows = """
        INSERT INTO account VALUES (1, 'access-v2', 'refresh-v2', 1795826400000, 1795828200000, '{"name":"Rider"}', NULL, 1795826400000);
        INSERT INTO stats VALUES (1, '{"workout_total_count":1,"workout_total_energy":40,"workout_total_distance":900,"workout_total_duration":300,"workout_streak":1,"last_workout_date":null}', 'gateway', 1795826401000);
        INSERT INTO trainings VALUES (1, '[{"id":"t1","name":"Hills"}]', 1795826402000);
        INSERT INTO upload_log VALUES (1, 1795826403000, '1 session in 1 batch: 1 uploaded', 1);
        INSERT INTO sessions VALUES ('00000000-0000-4000-8000-000000000001', 1795740000000, 1795740300000, 300, 40, 900,
            '{"session_id":"00000000-0000-4000-8000-000000000001","started_at":"2026-11-27T00:40:00Z","ended_at":"2026-11-27T00:45:00Z","duration":300,"total_energy":40,"total_distance":900}',
            'server', 'uploaded', 0, 0, NULL, 1795826404000, 1795826404000);
        INSERT INTO sessions VALUES ('00000000-0000-4000-8000-000000000002', 1795740600000, 1795740660000, 60, 5, 120,
            '{"session_id":"00000000-0000-4000-8000-000000000002","started_at":"2026-11-27T00:50:00Z","ended_at":"2026-11-27T00:51:00Z","duration":60,"total_energy":5,"total_distance":120,"detail":{"name":"SF-Rower-0003","address":"C0:5F:00:00:00:03","type":"rower","elapsed":60,"paused":0,"energy_method":"counter","distance_method":"counter","sample_count":60,"end_reason":"stopped"}}',
            'gateway', 'dead', 3, 2, 'validation_error: Invalid duration', 1795826405000, 1795826406000);
        """

    /// Everything the previous release wrote reads back as it was: each read the daemon, the
    /// uploader, `status`, `queue` and the dashboard make, against the rows as SQLite's own
    /// shell reads them (and JSON's own decoder for the checkpoints and series).
    @Test func aStoreOfThePreviousReleaseReadsIdentically() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file(GatewayStore.fileName)
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: path)
        _ = try await Self.rows(path, Self.previousReleaseRows)
        let sessions = try await Self.rows(
            path,
            """
            SELECT session_id, started_at, duration, total_energy, total_distance, upload_status, retry_count, rejection_count,
            COALESCE(last_error, '-'), origin = 'server', COALESCE(json_extract(summary, '$.detail.name'), '-'),
            COALESCE(json_extract(summary, '$.detail.type'), '-'), session_id IN (SELECT session_id FROM session_series)
            FROM sessions ORDER BY started_at, session_id
            """)
        let summaries = try await Self.rows(path, "SELECT summary FROM sessions ORDER BY started_at, session_id")
        let snapshots = try await Self.rows(path, "SELECT snapshot FROM checkpoints ORDER BY machine_address, saved_at, session_id")
            .map { try JSONDecoder().decode(SessionSnapshot.self, from: Data($0.utf8)) }
        let headers = try await Self.rows(path, "SELECT session_id, machine_name, machine_type, finished FROM session_series ORDER BY session_id")
        #expect(sessions.count == 3 && snapshots.count == 2 && headers.count == 2)

        let store = try GatewayStore(directory: directory.path)
        #expect(store.deviceID == "806a2f1d-90b8-484d-b1ac-74f7f4039f18")
        let listed = try await store.sessions()
        #expect(listed.map { session in
            [session.sessionID, "\(session.startedAt.millisecondsSince1970)", "\(session.duration)", "\(session.totalEnergy)",
             "\(session.totalDistance)", session.status.rawValue, "\(session.retryCount)", "\(session.rejectionCount)",
             session.lastError ?? "-", session.downloaded ? "1" : "0", session.machineName ?? "-", session.machineType ?? "-",
             session.hasSeries ? "1" : "0"].joined(separator: "|")
        } == sessions)
        #expect(try await store.recentSessions(limit: 10) == listed.reversed())
        for (session, summary) in zip(listed, summaries) {
            #expect(try await store.session(id: session.sessionID) == session)
            #expect(try await store.sessionJSON(id: session.sessionID) == summary)
        }
        let pending = try await store.pendingBatch(after: nil, limit: 10)
        #expect(pending == [PendingSession(
            sessionID: "c6f08c0d-80ad-4de2-93cf-2cb105bf304a", startedAt: UTCTime(millisecondsSince1970: 1_795_826_439_000),
            retryCount: 0, rejectionCount: 0, json: summaries[2])])
        #expect(try await store.counts() == QueueCounts(pending: 1, uploaded: 1, dead: 1))
        #expect(try await store.oldestPendingQueuedAt() == UTCTime(millisecondsSince1970: 1_795_826_447_872))

        #expect(try await store.loadAll() == snapshots)
        #expect(try await store.load(machineAddress: "C0:5F:00:00:00:02") == snapshots.last)
        for header in headers {
            let fields = header.split(separator: "|").map(String.init)
            let chunks = try await Self.rows(path, "SELECT points FROM session_series_chunks WHERE session_id = '\(fields[0])' ORDER BY chunk")
            let points = try chunks.flatMap { try JSONDecoder().decode([SeriesPoint].self, from: Data($0.utf8)) }
            #expect(try await store.series(sessionID: fields[0]) == StoredSeries(
                sessionID: fields[0], machineName: fields[1], machineType: MachineType(rawValue: fields[2]) ?? .rower,
                finished: fields[3] == "1", points: points))
        }

        let tokens = StoredTokens(
            accessToken: "access-v2", refreshToken: "refresh-v2", issuedAt: UTCTime(millisecondsSince1970: 1_795_826_400_000),
            expiresAt: UTCTime(millisecondsSince1970: 1_795_828_200_000))
        #expect(try await store.tokens() == tokens)
        let account = AccountState(loggedIn: true, loginRequiredReason: nil, userProfile: #"{"name":"Rider"}"#, accessExpiresAt: tokens.expiresAt)
        #expect(try await store.accountState() == account)
        #expect(try await store.storedStats() == StoredStats(
            stats: WorkoutStats(totalCount: 1, totalEnergy: 40, totalDistance: 900, totalDuration: 300, streak: 1, lastWorkoutDate: nil),
            source: .gateway, updatedAt: UTCTime(millisecondsSince1970: 1_795_826_401_000)))
        #expect(try await store.cachedTrainings() == TrainingsCache(
            body: #"[{"id":"t1","name":"Hills"}]"#, cacheTimestamp: UTCTime(millisecondsSince1970: 1_795_826_402_000)))
        let upload = UploadLogEntry(
            finishedAt: UTCTime(millisecondsSince1970: 1_795_826_403_000), result: "1 session in 1 batch: 1 uploaded", succeeded: true)
        #expect(try await store.lastUpload() == upload)
        #expect(try await store.overview() == StoreOverview(
            counts: QueueCounts(pending: 1, uploaded: 1, dead: 1),
            oldestPendingQueuedAt: UTCTime(millisecondsSince1970: 1_795_826_447_872), account: account, lastUpload: upload))
        #expect(try await store.localStats(timeZone: .gmt) == WorkoutStats(
            totalCount: 1, totalEnergy: 40, totalDistance: 900, totalDuration: 300, streak: 1,
            lastWorkoutDate: LocalDate(year: 2026, month: 11, day: 27)))
        let footprint = try await store.seriesFootprint()
        #expect(footprint.series == 2 && footprint.chunks == 2 && footprint.points == 24)
    }
}
