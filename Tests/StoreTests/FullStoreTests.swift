import TestSupport
import Foundation
import Synchronization
import Testing
import Workout
@testable import Store

/// A store whose disk is full (SQLite's page limit, `PRAGMA max_page_count`, gives SQLITE_FULL
/// deterministically; the reserve's view of the file system's free space is injected): the
/// failure is named, the health says so once and recovers once, and the reserve is given back
/// for finished sessions only, then made again when there is room.
@Suite("Full store")
struct FullStoreTests {
    /// The database may not grow past the pages it has now: the next write that needs a page
    /// fails with SQLITE_FULL.
    static func limitPages(_ store: GatewayStore, extra: Int = 0) async throws {
        try await store.database.writeWithoutTransaction { db in
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            try db.execute(sql: "PRAGMA max_page_count = \(pages + extra)")
        }
    }

    static func unlimitPages(_ store: GatewayStore) async throws {
        try await store.database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA max_page_count = 1073741823") }
    }

    /// Enqueues sessions from `first` on until one is refused; returns the refusal and the number of the refused session.
    static func fill(_ store: GatewayStore, from first: Int) async throws -> (WriteFailure, Int) {
        for number in first..<(first + 400) {
            do {
                try await store.enqueue(Sessions.summary(number, offset: number * 60))
            } catch StoreError.cannotWrite(let failure) {
                return (failure, number)
            }
        }
        throw StoreError.database("400 sessions fitted in a full store")
    }

    /// Records every health change the store reports.
    final class Changes: Sendable {
        let seen = Mutex<[(old: StoreHealth, new: StoreHealth)]>([])
        var flips: [Bool] { seen.withLock { $0.filter { $0.old.writable != $0.new.writable }.map(\.new.writable) } }
        init(_ store: GatewayStore) { store.onHealthChange { old, new in self.seen.withLock { $0.append((old, new)) } } }
    }

    @Test func aFullDiskIsNamedOnceAndItsRecoveryOnce() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock.atOrigin()
        let store = try GatewayStore(directory: directory.path, clock: clock.wall)
        let changes = Changes(store)
        #expect(store.health.writable)
        try await Self.limitPages(store)
        let (failure, refused) = try await Self.fill(store, from: 0)
        #expect(failure.cause == .full, "\(failure)")
        #expect(StoreError.cannotWrite(failure).description.hasPrefix("state database cannot be written: the file system is full ("))
        #expect(!store.health.writable)
        #expect(store.health.failingSince == Sessions.origin)
        clock.advance(.seconds(30))
        for number in refused..<(refused + 5) {
            await #expect(throws: StoreError.self) { try await store.enqueue(Sessions.summary(number, offset: number * 60)) }
        }
        #expect(store.health.failingSince == Sessions.origin, "still failing since the first refusal")
        #expect(changes.flips == [false], "one change when writes start failing, however many fail")
        try await Self.unlimitPages(store)
        try await store.enqueue(Sessions.summary(refused, offset: refused * 60))
        #expect(store.health.writable)
        #expect(store.health.failure == nil && store.health.failingSince == nil)
        #expect(changes.flips == [false, true])
        #expect(try await store.session(id: Sessions.id(refused)) != nil)
    }

    /// The reserve: a periodic write that finds the disk full leaves it alone; a write that
    /// keeps a session gives it back and tries again; while it is out, periodic writes are
    /// refused before they are tried (they would eat its room), the store still says it cannot
    /// write, and once the file system has room the reserve is made again and the store is
    /// writable.
    @Test func theReserveIsGivenBackForFinishedSessionsAndMadeAgain() async throws {
        let directory = try TemporaryDirectory()
        let free = Mutex<Int64>(1 << 30)
        let reserve = StoreReserve(directory: directory.path, bytes: 64 << 10, freeSpace: { _ in free.withLock { $0 } })
        let store = try GatewayStore(directory: directory.path, reserve: reserve)
        let ballast = try #require(TemporaryDirectory.status(reserve.path))
        #expect(Int64(ballast.st_blocks) * 512 >= 64 << 10, "its blocks are allocated, not a sparse file")
        #expect(store.health.reserve == .held)

        // The disk fills. Checkpoints with their plot points find it full: the reserve stays.
        free.withLock { $0 = 0 }
        try await Self.limitPages(store)
        let riding = try CheckpointStoreTests.snapshot()
        let points = (0..<3000).map { SeriesPoint(t: Double($0), power: 180, cadence: 85, heartRate: 130) }
        await #expect(throws: StoreError.self) {
            try await store.saveAll([riding], series: [SeriesChunk(sessionID: riding.sessionID, machine: riding.machine, points: points)])
        }
        #expect(store.health.failure?.cause == .full)
        #expect(store.health.reserve == .held)
        #expect(reserve.isHeld)

        // A finished session gives the reserve back; here the page limit still refuses it.
        _ = try await Self.fill(store, from: 0)
        #expect(!reserve.isHeld && TemporaryDirectory.status(reserve.path) == nil, "the ballast file is gone")
        #expect(store.health.reserve == .released)

        // The database has room (the reserve's), the file system none: a checkpoint is refused
        // before it is tried, a finished session goes in, and the store still cannot write.
        try await Self.unlimitPages(store)
        await #expect(throws: StoreError.self) { try await store.save(riding) }
        #expect(try await store.loadAll().isEmpty)
        try await store.enqueue(Sessions.summary(1000, offset: 0))
        #expect(try await store.session(id: Sessions.id(1000)) != nil)
        #expect(!store.health.writable)
        #expect(store.health.reserve == .released)

        // Room again: the next write makes the reserve again and the store is writable.
        free.withLock { $0 = 1 << 30 }
        try await store.save(riding)
        #expect(reserve.isHeld)
        #expect(store.health.reserve == .held)
        #expect(store.health.writable)
        #expect(try await store.loadAll() == [riding])
    }

    /// Made only with room for it and as much again, so making it never fills the disk.
    @Test func theReserveIsNotMadeOnANearlyFullDisk() throws {
        let directory = try TemporaryDirectory()
        let reserve = StoreReserve(directory: directory.path, bytes: 64 << 10, freeSpace: { _ in 100 << 10 })
        let store = try GatewayStore(directory: directory.path, reserve: reserve)
        #expect(!reserve.isHeld)
        #expect(store.health.reserve == .missing)
        #expect(store.health.writable, "a missing reserve is no failure")
    }
}
