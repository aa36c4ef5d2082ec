import Foundation
import GRDB
import TestSupport
import Testing
import Workout
@testable import Store

/// The daemon's store changes its connection without a restart (contract §6): into memory when
/// the state directory cannot be written, back to the file when it can, and to a fresh file
/// when the one in use is found damaged on disk.
@Suite("Store backing")
struct StoreBackingTests {
    static let readOnly = WriteFailure(cause: .readOnly, detail: "test: read-only")

    /// A store file with `count` sessions and a login, closed.
    static func makeFile(in directory: TemporaryDirectory, count: Int) async throws -> String {
        let store = try GatewayStore(directory: directory.path)
        try await store.saveTokens(AccountTests.tokens)
        for number in 0..<count { try await store.enqueue(Sessions.summary(number, offset: number * 60)) }
        let id = store.deviceID
        try store.close()
        return id
    }

    static func statuses(in directory: String) async throws -> [String: String] {
        let store = try GatewayStore(readingFrom: directory)
        defer { try? store.close() }
        return try await store.database.read { db in
            try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT session_id, upload_status FROM sessions").map {
                ($0["session_id"] as String, $0["upload_status"] as String)
            })
        }
    }

    @Test func aStoreInMemoryIsSeededFromTheFileAndWrittenBackOnceEach() async throws {
        let directory = try TemporaryDirectory()
        let deviceID = try await Self.makeFile(in: directory, count: 3)
        let store = try GatewayStore.keptInMemory(directory: directory.path, because: Self.readOnly)
        #expect(store.isInMemory)
        #expect(!store.health.writable)
        #expect(store.health.problem == Self.readOnly)
        #expect(store.deviceID == deviceID)
        #expect(try await store.tokens()?.accessToken == "access-1")
        #expect(try await store.counts().pending == 3)
        // Rides while in memory: one uploaded from memory, one still pending.
        try await store.enqueue(Sessions.summary(10, offset: 6000))
        try await store.enqueue(Sessions.summary(11, offset: 7000))
        try await store.record([Sessions.id(0): .uploaded, Sessions.id(10): .uploaded])
        #expect(try await Self.statuses(in: directory.path).count == 3, "memory wrote to the file")

        #expect(try store.writeMemoryToFile())
        #expect(!store.isInMemory)
        #expect(store.health.writable)
        let onDisk = try await Self.statuses(in: directory.path)
        #expect(onDisk.count == 5)
        #expect(onDisk[Sessions.id(0)] == "uploaded")
        #expect(onDisk[Sessions.id(10)] == "uploaded")
        #expect(onDisk[Sessions.id(11)] == "pending")
        // The store goes on with the file.
        try await store.enqueue(Sessions.summary(12, offset: 8000))
        #expect(try await Self.statuses(in: directory.path).count == 6)
        #expect(try store.writeMemoryToFile() == false)
        try store.close()
        let reopened = try GatewayStore(directory: directory.path)
        #expect(reopened.deviceID == deviceID)
        #expect(try await reopened.tokens()?.accessToken == "access-1")
        #expect(try await reopened.integrityCheck() == ["ok"])
    }

    @Test func aStoreInMemoryWaitsWhileTheDirectoryCannotBeMade() async throws {
        let directory = try TemporaryDirectory()
        let blocker = directory.path + "/not-a-directory"
        #expect(FileManager.default.createFile(atPath: blocker, contents: Data()))
        let store = try GatewayStore.keptInMemory(directory: blocker + "/state", because: Self.readOnly)
        try await store.enqueue(Sessions.summary(1, offset: 0))
        #expect(try store.writeMemoryToFile() == false)
        #expect(store.isInMemory)
        #expect(try await store.counts().pending == 1)
        try FileManager.default.removeItem(atPath: blocker)
        #expect(try store.writeMemoryToFile())
        #expect(try await Self.statuses(in: blocker + "/state").count == 1)
    }

    @Test func aRunningStoreGoesIntoMemoryAndBack() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        try await store.enqueue(Sessions.summary(1, offset: 0))
        try store.keepInMemory(because: Self.readOnly)
        #expect(store.isInMemory)
        try await store.enqueue(Sessions.summary(2, offset: 100))
        #expect(try await Self.statuses(in: directory.path).count == 1)
        #expect(try store.writeMemoryToFile())
        #expect(try await Self.statuses(in: directory.path).count == 2)
    }

    /// Bytes `count` at `offset` of the file overwritten, as `dd conv=notrunc` does.
    static func garble(_ path: String, page: Int, pageSize: Int = 4096) throws {
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: UInt64(page * pageSize))
        try handle.write(contentsOf: Data((0..<pageSize).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 13) }))
        try handle.synchronize()
        try handle.close()
    }

    @Test func damageUnderTheStoreIsFoundOnDiskAndTheStoreGoesOnWithAFreshFile() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        try await store.saveTokens(AccountTests.tokens)
        for number in 0..<200 { try await store.enqueue(Sessions.summary(number, offset: number * 60)) }
        try await store.database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        // The daemon's connection reads every row now (its cache), as a running daemon does.
        let before = try await store.counts().pending
        #expect(before == 200)
        #expect(store.checkOnDisk() == .sound)
        let pages = Int(try FileManager.default.attributesOfItem(atPath: store.path)[.size] as? Int64 ?? 0) / 4096
        try Self.garble(store.path, page: pages / 2)
        guard case .damaged = store.checkOnDisk() else {
            Issue.record("a garbled middle page of \(pages) is not found on disk")
            return
        }
        let moved = try store.replaceDamagedFile(reason: "test")
        #expect(FileManager.default.fileExists(atPath: moved.path))
        #expect(moved.keptLogin)
        #expect(!store.isInMemory)
        #expect(store.checkOnDisk() == .sound)
        #expect(try await store.tokens()?.accessToken == "access-1")
        let carried = try await store.counts().pending
        #expect(carried > 0)
        try await store.enqueue(Sessions.summary(500, offset: 50_000))
        #expect(try await Self.statuses(in: directory.path).count == carried + 1)
        #expect(DamagedFiles.list(in: directory.path).count == 1)
    }
}
