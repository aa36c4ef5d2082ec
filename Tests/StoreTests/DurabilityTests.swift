import TestSupport
import Foundation
import Testing
@testable import Store

/// contract §6 and §10: WAL with synchronous=FULL, versioned migrations, files readable by the
/// service user only.
@Suite("Store durability")
struct DurabilityTests {
    @Test func walWithFullSynchronous() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        let settings = try await store.durabilitySettings()
        #expect(settings.journalMode == "wal")
        #expect(settings.synchronous == 2, "PRAGMA synchronous must be FULL (2), not NORMAL (1)")
    }

    /// SQLite's default page cache (2 MB) fills with anonymous memory over a long run; the
    /// store bounds it, for the writer and for the dashboard's read-only connection alike.
    @Test func pageCacheIsBounded() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        #expect(try await store.pageCacheLimitKiB() == GatewayStore.pageCacheKiB)
        #expect(GatewayStore.pageCacheKiB <= 512)
        let reader = try GatewayStore(readingFrom: directory.path)
        #expect(try await reader.pageCacheLimitKiB() == GatewayStore.pageCacheKiB)
    }

    @Test func migrationsAreVersionedAndAppliedOnce() async throws {
        let directory = try TemporaryDirectory()
        let first = try GatewayStore(directory: directory.path)
        #expect(try await first.appliedMigrations() == StoreSchema.knownMigrations)
        #expect(StoreSchema.knownMigrations.first == "v1-initial")
        let again = try GatewayStore(directory: directory.path)
        #expect(try await again.appliedMigrations() == StoreSchema.knownMigrations)
        #expect(try await again.integrityCheck() == ["ok"])
    }

    /// The database, its WAL and its shared-memory file hold tokens: 0600, in a 0700 directory
    /// the store made itself.
    @Test func filesAreOwnerOnly() async throws {
        let parent = try TemporaryDirectory()
        let directory = parent.file("state/nested")
        let store = try GatewayStore(directory: directory)
        try await store.saveTokens(StoredTokens(
            accessToken: "a", refreshToken: "r", issuedAt: Sessions.origin, expiresAt: Sessions.origin.adding(seconds: 60)))
        for file in [store.path, store.path + "-wal", store.path + "-shm"] {
            let mode = try #require(FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
            #expect(mode == 0o600, "\(file) has mode \(String(mode, radix: 8))")
        }
        let directoryMode = try #require(FileManager.default.attributesOfItem(atPath: directory)[.posixPermissions] as? Int)
        #expect(directoryMode == 0o700)
    }

    /// A database copied in with a wider mode is narrowed on open.
    @Test func aWiderModeIsNarrowed() async throws {
        let directory = try TemporaryDirectory()
        let path = try GatewayStore(directory: directory.path).path
        #expect(chmod(path, 0o644) == 0)
        _ = try GatewayStore(directory: directory.path)
        let mode = try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
    }

    /// Two processes (here, two stores on one file) writing at once wait for each other's
    /// locks instead of failing with "database is locked".
    @Test func twoWritersOnOneFileBothSucceed() async throws {
        let directory = try TemporaryDirectory()
        let first = try GatewayStore(directory: directory.path)
        let second = try GatewayStore(directory: directory.path)
        #expect(first.deviceID == second.deviceID)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, store) in [first, second].enumerated() {
                group.addTask {
                    for number in 0..<100 {
                        try await store.enqueue(Sessions.summary(index * 1000 + number, offset: number * 60))
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await first.counts().pending == 200)
    }
}
