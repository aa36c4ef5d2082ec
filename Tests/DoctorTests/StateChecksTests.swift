import Clocks
import TestSupport
import JSON
import Doctor
import Foundation
import Store
import Testing
import Workout

/// The state directory, database and login checks against real stores in temporary directories.
@Suite("State, database and login checks")
struct StateChecksTests {
    @Test func aMissingStateDirectoryIsAWarningAndNothingIsCreated() async throws {
        let directory = try TemporaryDirectory()
        let report = await Doctor(inputs: .isolated(in: directory)).run()
        #expect(report.check("state-dir")?.status == .warning)
        #expect(report.check("state-dir")?.detail == "\(directory.file("state")) (--state-dir) does not exist yet")
        #expect(report.check("database")?.status == .skipped)
        #expect(report.check("login")?.status == .skipped)
        #expect(!FileManager.default.fileExists(atPath: directory.file("state")))
    }

    @Test func anEmptyStateDirectoryHasNoDatabaseAndTheDoctorMakesNone() async throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("state"), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o750])
        let report = await Doctor(inputs: .isolated(in: directory)).run()
        let state = try #require(report.check("state-dir"))
        #expect(state.data["mode"] == "0750")
        #expect(state.data["exists"] == true)
        #expect(report.check("database")?.status == .warning)
        #expect(report.check("database")?.detail == "no database yet at \(directory.file("state"))/\(GatewayStore.fileName)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("state/\(GatewayStore.fileName)")))
    }

    @Test func queueCountsAndTheOldestPendingSession() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.file("state"), clock: WallClock { Fixed.now })
        _ = try await store.enqueue([
            Fixed.session(1, startedSecondsAgo: 5400), Fixed.session(2, startedSecondsAgo: 600),
            Fixed.session(3, startedSecondsAgo: 300), Fixed.session(4, startedSecondsAgo: 200),
        ])
        try await store.record([Fixed.session(3, startedSecondsAgo: 0).sessionID: .uploaded])
        try store.close()

        let report = await Doctor(inputs: .isolated(in: directory)).run()
        let database = try #require(report.check("database"))
        #expect(database.status == .ok, "\(database.detail)")
        #expect(database.data["pending"] == 3)
        #expect(database.data["uploaded"] == 1)
        #expect(database.data["dead"] == 0)
        #expect(database.data["oldest_pending_age_s"] == 5400)
        #expect(database.data["oldest_pending_started_at"] == .string(Fixed.now.adding(seconds: -5400).iso8601))
        #expect(database.data["integrity"] == ["ok"])
        guard case .array(let migrations)? = database.data["migrations"] else {
            Issue.record("no migrations in \(database.data)")
            return
        }
        #expect(!migrations.isEmpty)
        let applied = migrations.count == 1 ? "1 migration" : "\(migrations.count) migrations"
        #expect(database.detail.hasSuffix("integrity ok, \(applied) applied; 3 pending (oldest 90 min old), 1 uploaded, 0 dead"))
        #expect(report.check("login")?.status == .warning)
        #expect(report.check("login")?.detail == "not logged in")
    }

    @Test func deadSessionsAndAStaleQueueAreWarnings() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.file("state"), clock: WallClock { Fixed.now })
        _ = try await store.enqueue([Fixed.session(1, startedSecondsAgo: 3 * 86_400), Fixed.session(2, startedSecondsAgo: 60)])
        try store.close()
        let stale = try #require(await Doctor(inputs: .isolated(in: directory)).run().check("database"))
        #expect(stale.status == .warning)
        #expect(stale.detail.contains("2 pending (oldest 3 d old)"))
        #expect(stale.hint == "uploads are not getting through: see the backend and login checks")

        let reopened = try GatewayStore(directory: directory.file("state"), clock: WallClock { Fixed.now })
        try await reopened.record([Fixed.session(2, startedSecondsAgo: 0).sessionID: .dead(error: "validation_error: Invalid duration")])
        try reopened.close()
        let dead = try #require(await Doctor(inputs: .isolated(in: directory)).run().check("database"))
        #expect(dead.status == .warning)
        #expect(dead.data["dead"] == 1)
        #expect(dead.hint?.contains("ftms-bridge queue --retry-dead") == true)
    }

    @Test func aCorruptDatabaseIsAFailureNotACrash() async throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("state"), withIntermediateDirectories: true)
        let path = directory.file("state/\(GatewayStore.fileName)")
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: path))
        let report = await Doctor(inputs: .isolated(in: directory)).run()
        let database = try #require(report.check("database"))
        #expect(database.status == .failed)
        #expect(database.detail.hasPrefix("state database \(path) is damaged ("))
        #expect(database.hint?.contains("ftms-bridge salvage") == true)
        #expect(report.check("login")?.status == .skipped)
        #expect(report.exitStatus == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(repeating: 0x5A, count: 8192), "the doctor changed the file")
    }

    /// A damaged database the daemon moved aside waits for `salvage`: a warning that says so,
    /// until salvage renames it.
    @Test func aDamagedDatabaseMovedAsideIsAWarningUntilSalvaged() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.file("state"), clock: WallClock { Fixed.now })
        _ = try await store.enqueue([Fixed.session(1, startedSecondsAgo: 60)])
        try store.close()
        let aside = directory.file("state/\(GatewayStore.fileName).damaged-20261121T080000Z")
        try Data(repeating: 0, count: 8192).write(to: URL(fileURLWithPath: aside))
        let database = try #require(await Doctor(inputs: .isolated(in: directory)).run().check("database"))
        #expect(database.status == .warning)
        #expect(database.detail.contains("a damaged database was moved aside at 2026-11-21T08:00:00Z: \(aside)"), "\(database.detail)")
        #expect(database.hint?.contains("ftms-bridge salvage") == true)
        #expect(database.data["damaged_files"] == .array([.string(aside)]))
        _ = try DamagedFiles.markSalvaged(aside, at: Fixed.now)
        let after = try #require(await Doctor(inputs: .isolated(in: directory)).run().check("database"))
        #expect(after.status == .ok, "\(after.detail)")
    }

    @Test func loginStates() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.file("state"), clock: WallClock { Fixed.now })
        try await store.saveTokens(StoredTokens(
            accessToken: "access-token-1234567890", refreshToken: "refresh-token-1234567890", issuedAt: Fixed.now.adding(seconds: -60),
            expiresAt: Fixed.now.adding(seconds: 1740)))
        let loggedIn = try #require(await Doctor(inputs: .isolated(in: directory)).run().check("login"))
        #expect(loggedIn.status == .ok)
        #expect(loggedIn.detail == "logged in; access token valid until \(Fixed.now.adding(seconds: 1740).iso8601)")
        #expect(loggedIn.data["tokens"] == "held (redacted)")

        try await store.dropTokens(reason: "the backend refused the refresh token (invalid_token)")
        try store.close()
        let lost = try #require(await Doctor(inputs: .isolated(in: directory)).run().check("login"))
        #expect(lost.status == .failed)
        #expect(lost.detail == "login required: the backend refused the refresh token (invalid_token)")
    }
}
