import Clocks
import TestSupport
import FTMS
import Foundation
import GRDB
import Testing
import Workout
@testable import Store

/// The store's Codable records against the schema they write: every record reads back equal to
/// what was written, and every value lands in SQLite with its column's declared type (times and
/// flags as integers, JSON and names as text), as the previous release wrote them. A record
/// whose coding keys drifted from its columns, or a value GRDB encoded another way (a time as
/// JSON text, say), fails here before a gateway's store meets it.
@Suite("Store records")
struct RecordTests {
    static let now = UTCTime(millisecondsSince1970: 1_795_826_400_123)

    /// A store holding a row of every table, each column with a value where it can have one.
    static func filledStore(_ directory: TemporaryDirectory) async throws -> GatewayStore {
        let store = try GatewayStore(directory: directory.path, clock: WallClock { now })
        try await store.saveTokens(AccountTests.tokens, userProfile: #"{"name":"Rider"}"#)
        try await store.saveStats(
            WorkoutStats(totalCount: 2, totalEnergy: 30, totalDistance: 400, totalDuration: 90, streak: 1, lastWorkoutDate: LocalDate(year: 2026, month: 11, day: 21)),
            source: .gateway)
        try await store.cacheTrainings(body: #"[{"id":"t1"}]"#)
        try await store.logUpload(result: "1 uploaded", succeeded: true)
        try await store.enqueue(Sessions.summary(1, offset: 0), series: SeriesStoreTests.chunk(1, from: 0, count: 3))
        try await store.enqueue(
            Sessions.summary(2, offset: 60), timing: SessionTiming(boot: BootID("0d6c4e3a-5a44-4bd4-9c4e-2b0c51f6e3c1"), start: .seconds(90), datesAreTrue: false))
        try await store.saveWallClock(StoredWallClock(boot: "0d6c4e3a-5a44-4bd4-9c4e-2b0c51f6e3c1", offset: 1_795_000_000_000, trustedOffset: 1_795_000_000_500, trust: "ntp"))
        try await store.record([Sessions.id(2): .retry(error: "internal_error")])
        try await store.saveAll([try CheckpointStoreTests.snapshot(seed: 3)], series: [SeriesStoreTests.chunk(3, from: 0, count: 2)])
        return store
    }

    @Test func everyValueHasItsColumnsDeclaredType() async throws {
        let directory = try TemporaryDirectory()
        let store = try await Self.filledStore(directory)
        let mismatches = try await store.read { db in
            var mismatches: [String] = []
            let tables = [
                "device", "account", "sessions", "checkpoints", "stats", "trainings", "upload_log", "session_series", "session_series_chunks",
                "wall_clock",
            ]
            for table in tables {
                let columns = try db.columns(in: table)
                let rows = try Row.fetchAll(db, sql: "SELECT \(columns.map { "typeof(\($0.name))" }.joined(separator: ", ")) FROM \(table)")
                if rows.isEmpty { mismatches.append("\(table): no row") }
                for row in rows {
                    for (index, column) in columns.enumerated() {
                        let stored: String = row[index]
                        let declared = column.type.lowercased()
                        if stored != declared, !(stored == "null" && !column.isNotNull) {
                            mismatches.append("\(table).\(column.name): \(stored), declared \(declared)")
                        }
                    }
                }
            }
            return mismatches
        }
        #expect(mismatches == [])
    }

    /// Each record as the store writes it, read back through its own type.
    @Test func everyRecordReadsBackAsWritten() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        let snapshot = try CheckpointStoreTests.snapshot(seed: 4)
        let session = QueuedSession(SessionRecord(Sessions.summary(1, offset: 0)), origin: .server, status: .dead, at: Self.now)
        var failed = session
        failed.sessionID = Sessions.id(2)
        failed.retryCount = 3
        failed.rejectionCount = 2
        failed.lastError = "validation_error"
        failed.updatedAt = Self.now.adding(seconds: 1)
        failed.dates = .waiting
        failed.bootID = BootID("0d6c4e3a-5a44-4bd4-9c4e-2b0c51f6e3c1")
        failed.bootStart = 90_000
        let account = AccountRow(
            accessToken: "a", refreshToken: "r", accessIssuedAt: Self.now, accessExpiresAt: Self.now.adding(seconds: 60), userProfile: "{}",
            loginRequiredReason: "why", updatedAt: Self.now)
        let stats = StoredStats(
            stats: WorkoutStats(totalCount: 1, totalEnergy: 2, totalDistance: 3, totalDuration: 4, streak: 0, lastWorkoutDate: nil),
            source: .server, updatedAt: Self.now)
        let trainings = TrainingsCache(body: "[]", cacheTimestamp: Self.now)
        let upload = UploadLogEntry(finishedAt: Self.now, result: "0 sessions", succeeded: false)
        let series = SeriesRow(sessionID: Sessions.id(1), machineName: "SF-Rower-0002", machineType: "rower", finished: true, createdAt: Self.now)
        let chunk = SeriesChunkRow(sessionID: Sessions.id(1), chunk: 7, points: SeriesStoreTests.points(from: 0, count: 4))
        let clock = WallClockRow(StoredWallClock(boot: "b", offset: -5, trustedOffset: nil, trust: nil), at: Self.now)
        let sessions = [session, failed]
        let read = try await store.write { db in
            try DeviceRow.deleteAll(db)
            try DeviceRow(deviceID: "806a2f1d-90b8-484d-b1ac-74f7f4039f18", createdAt: Self.now).insert(db)
            for record in sessions { try record.insert(db) }
            try account.insert(db)
            try CheckpointRow(snapshot).insert(db)
            try stats.insert(db)
            try trainings.insert(db)
            try upload.insert(db)
            try series.insert(db)
            try chunk.insert(db)
            try clock.insert(db)
            return (
                try DeviceRow.fetchAll(db), try QueuedSession.order { $0.sessionID }.fetchAll(db), try AccountRow.fetchAll(db),
                try CheckpointRow.fetchAll(db), try StoredStats.fetchAll(db), try TrainingsCache.fetchAll(db), try UploadLogEntry.fetchAll(db),
                try SeriesRow.fetchAll(db), try SeriesChunkRow.fetchAll(db), try WallClockRow.fetchAll(db))
        }
        #expect(read.0 == [DeviceRow(deviceID: "806a2f1d-90b8-484d-b1ac-74f7f4039f18", createdAt: Self.now)])
        #expect(read.1 == sessions)
        #expect(read.2 == [account])
        #expect(read.3 == [CheckpointRow(snapshot)])
        #expect(read.4 == [stats])
        #expect(read.5 == [trainings])
        #expect(read.6 == [upload])
        #expect(read.7 == [series])
        #expect(read.8 == [chunk])
        #expect(read.9 == [clock])
    }
}
