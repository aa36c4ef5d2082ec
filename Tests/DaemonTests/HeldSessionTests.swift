import BlueZTesting
import TestSupport
import DeterministicRandom
import FTMS
import Foundation
import Logging
import Synchronization
import Testing
import Workout
@testable import Daemon
import Publish
@testable import Store

/// A finished session the store cannot take (a full disk: SQLite's page limit gives SQLITE_FULL
/// deterministically) is never lost: held in memory, written as soon as the store takes writes
/// again, before anything else of its machine; the journal says it once each way, and status
/// says what is held and why.
@Suite("Held sessions")
struct HeldSessionTests {
    typealias Rig = FinishedSessionKeeperTests.Rig

    /// Log lines kept for the test to count.
    final class Lines: Sendable {
        let lines = Mutex<[(Logger.Level, String)]>([])
        var logger: Logger {
            Logger(label: "test") { _ in Handler(lines: self) }
        }
        func count(_ level: Logger.Level, containing text: String) -> Int {
            lines.withLock { $0.filter { $0.0 == level && $0.1.contains(text) }.count }
        }
        struct Handler: LogHandler {
            let lines: Lines
            var metadata: Logger.Metadata = [:]
            var logLevel: Logger.Level = .trace
            subscript(metadataKey key: String) -> Logger.Metadata.Value? {
                get { metadata[key] }
                set { metadata[key] = newValue }
            }
            func log(event: LogEvent) {
                lines.lines.withLock { $0.append((event.level, "\(event.message)")) }
            }
        }
    }

    final class Count: Sendable {
        let value = Mutex(0)
        func increment() { value.withLock { $0 += 1 } }
        var now: Int { value.withLock { $0 } }
    }

    /// Fills the store until a write needs a page it may not have.
    static func fill(_ store: GatewayStore) async throws {
        try await store.database.writeWithoutTransaction { db in
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            try db.execute(sql: "PRAGMA max_page_count = \(pages)")
        }
        for number in 0..<400 {
            do {
                try await store.enqueue(try Self.filler(number))
            } catch {
                return
            }
        }
        Issue.record("the store never filled")
    }

    static func unlimit(_ store: GatewayStore) async throws {
        try await store.database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA max_page_count = 1073741823") }
    }

    static func filler(_ number: Int) throws -> SessionSummary {
        var summary = try #require(SessionSeriesTests.finish(try FinishedSessionKeeperTests.snapshot(9)))
        summary.sessionID = String(format: "99999999-0000-4000-8000-%012d", number)
        return summary
    }

    static func waitFor(_ what: String, _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while try await !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("timed out waiting for \(what)")
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test
    func aRefusedSessionIsHeldAndStoredFirstWhenTheStoreRecovers() async throws {
        // The daemon's store: a reserve, here over a file system whose free space the test sets.
        let directory = try TemporaryDirectory(prefix: "ftms-held")
        let free = Mutex<Int64>(1 << 30)
        let store = try GatewayStore(
            directory: directory.path, reserve: StoreReserve(directory: directory.path, bytes: 64 << 10, freeSpace: { _ in free.withLock { $0 } }))
        let lines = Lines()
        let stored = Count()
        let keeper = FinishedSessionKeeper(store: store, window: .milliseconds(50), logger: lines.logger, stored: { stored.increment() })
        let sink = SessionSink(keeper: keeper, publisher: LivePublisher(server: nil), logger: lines.logger)
        let published = Mutex<[String]>([])
        let watch = StoreWatch(
            store: store, keeper: keeper, lowSpaceBytes: 1 << 20, movedAside: nil, logger: lines.logger,
            publish: { json in published.withLock { $0.append(json) } })
        watch.start()

        let riding = try FinishedSessionKeeperTests.snapshot(1)
        let machine = riding.machine
        for t in 0..<3 { sink.record(SessionSeriesTests.point(t), sessionID: riding.sessionID, machine: machine) }
        await sink.checkpoint(riding)
        free.withLock { $0 = 0 }
        try await Self.fill(store)

        // The session ends while the disk is full: held, its checkpoint kept, its points with it.
        for t in 3..<6 { sink.record(SessionSeriesTests.point(t), sessionID: riding.sessionID, machine: machine) }
        let summary = try #require(SessionSeriesTests.finish(riding))
        await sink.deliver(.finished(SessionSeriesTests.progress(riding), summary), machine: machine)
        #expect(await keeper.heldCount == 1)
        #expect(try await store.session(id: summary.sessionID) == nil)
        #expect(try await store.loadAll().map(\.sessionID) == [riding.sessionID], "its checkpoint stays")

        // The machine rides on: its next session's checkpoints wait behind the held one.
        let next = try FinishedSessionKeeperTests.snapshot(1, seconds: 40)
        let nextSession = try SessionSnapshotAs.other(next)
        await keeper.submit(nextSession)
        // Another machine's checkpoints go on being tried (some fit, some not) every window.
        let other = try FinishedSessionKeeperTests.snapshot(2)
        await keeper.submit(other)
        await keeper.flush()
        #expect(try await store.loadAll().map(\.sessionID).contains(nextSession.sessionID) == false)
        try await Task.sleep(for: .milliseconds(300))
        await keeper.submit(other)
        await keeper.flush()
        let failing = await watch.status()
        #expect(!failing.writable)
        #expect(failing.cause == "disk_full")
        #expect(failing.heldSessions == 1)
        #expect(failing.lowSpace && failing.freeBytes == 0)
        #expect(failing.reserve == "released")
        // Where operators look: STATUS=, the status JSON, the MQTT store topic.
        let clause = StatusProbe.storeClause(failing)
        #expect(clause.contains("; STORE CANNOT WRITE: the file system is full (database or disk is full)"), "\(clause)")
        #expect(clause.contains("; 1 finished session(s) held in memory") && clause.contains("; state disk low: 0 B free"), "\(clause)")
        let json = try DaemonControl.json(failing)
        #expect(json.contains("\"writable\":false") && json.contains("\"cause\":\"disk_full\"") && json.contains("\"held_sessions\":1"), "\(json)")
        await watch.observe(failing)
        #expect(published.withLock { $0.last?.contains("\"writable\":false") == true })
        #expect(lines.count(.warning, containing: "under the 1.0 MiB of state.low_space_warning_mib") == 1)

        // Room again: the timer stores the held session first, then the machine's checkpoint.
        try await Self.unlimit(store)
        free.withLock { $0 = 1 << 30 }
        try await Self.waitFor("the held session stored") { await keeper.heldCount == 0 }
        await keeper.flush()
        #expect(try await store.session(id: summary.sessionID)?.status == .pending)
        let series = try #require(try await store.series(sessionID: summary.sessionID))
        #expect(series.finished && series.points == (0..<6).map(SessionSeriesTests.point))
        #expect(Set(try await store.loadAll().map(\.sessionID)) == [nextSession.sessionID, other.sessionID])
        #expect(stored.now == 1, "the uploader is woken for it")
        try await Self.waitFor("the status to recover") { await watch.status().writable }
        #expect(await watch.status().heldSessions == 0)
        await watch.observe(await watch.status())
        #expect(published.withLock { $0.last?.contains("\"writable\":true") == true })
        #expect(lines.count(.notice, containing: "free again") == 1)
        try await Self.waitFor("the recovery line") { lines.count(.notice, containing: "writable again") == 1 }
        #expect(lines.count(.error, containing: "state database cannot be written: the file system is full") == 1)
        #expect(lines.count(.notice, containing: "writable again") == 1, "no flapping while some writes fit")
        #expect(lines.count(.warning, containing: "not saved") == 0, "no line per failed batch")
    }

    /// A machine's sessions queue in the order they ended, the held one first, whatever the
    /// other machines do.
    @Test
    func aMachinesLaterSessionQueuesBehindItsHeldOne() async throws {
        let rig = try Rig()
        let keeper = FinishedSessionKeeper(store: rig.store, window: .seconds(3600), logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        let first = try #require(SessionSeriesTests.finish(try FinishedSessionKeeperTests.snapshot(1)))
        var second = first
        second.sessionID = "00000000-0000-4000-8000-000000000002"
        try await Self.fill(rig.store)
        #expect(await keeper.finish(first, machine: first.detail.machine).isStored == false)
        try await Self.unlimit(rig.store)
        // The store takes writes again: the later session's own write stores the held one first.
        #expect(await keeper.finish(second, machine: first.detail.machine).isStored == true)
        #expect(await keeper.heldCount == 0)
        let queued = try await rig.store.database.read { db in
            try String.fetchAll(db, sql: "SELECT session_id FROM sessions WHERE session_id NOT LIKE '99999999%' ORDER BY rowid")
        }
        #expect(queued == [first.sessionID, second.sessionID])
    }

    /// A full file system reads as unable to write at once, before a write has been refused
    /// (a write may still find room in the WAL's old frames for a while).
    @Test func aFullDiskReadsAsUnwritableBeforeAWriteFails() async throws {
        let directory = try TemporaryDirectory(prefix: "ftms-held")
        let free = Mutex<Int64>(1 << 30)
        let store = try GatewayStore(
            directory: directory.path, reserve: StoreReserve(directory: directory.path, bytes: 64 << 10, freeSpace: { _ in free.withLock { $0 } }))
        let keeper = FinishedSessionKeeper(store: store, window: .seconds(3600), logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        let watch = StoreWatch(store: store, keeper: keeper, lowSpaceBytes: 0, movedAside: nil, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        #expect(await watch.status().writable)
        free.withLock { $0 = 4096 }
        let full = await watch.status()
        #expect(!full.writable && full.cause == "disk_full" && full.freeBytes == 4096, "\(full)")
        #expect(store.health.writable, "nothing has been refused yet")
        free.withLock { $0 = 1 << 30 }
        #expect(await watch.status().writable)
    }

    /// A timed flush that comes while ``FinishedSessionKeeper/finish(_:machine:timing:splitFrom:)``
    /// is storing its session (the store's writer busy, as a loaded guest's fsync makes it)
    /// stores nothing a second time: the journal says "finished" once (the VM's `crash`
    /// scenario saw it twice a session).
    @Test func aFlushDuringAFinishStoresTheSessionOnce() async throws {
        let rig = try Rig()
        let store = rig.store
        let lines = Lines()
        let keeper = FinishedSessionKeeper(store: store, window: .seconds(3600), logger: lines.logger)
        let riding = try FinishedSessionKeeperTests.snapshot(1)
        let summary = try #require(SessionSeriesTests.finish(riding))
        let inside = Mutex(false)
        let gate = DispatchSemaphore(value: 0)
        let blocker = Task.detached {
            try await store.database.writeWithoutTransaction { _ in
                inside.withLock { $0 = true }
                gate.wait()
            }
        }
        try await Self.waitFor("the store's writer held") { inside.withLock { $0 } }
        let finishing = Task { await keeper.finish(summary, machine: riding.machine) }
        // Time for finish() to reach the store's writer, and the flush to come while it waits.
        try await Task.sleep(for: .milliseconds(300))
        let flushing = Task { await keeper.flush() }
        try await Task.sleep(for: .milliseconds(300))
        gate.signal()
        try await blocker.value
        #expect(await finishing.value == .queued)
        await flushing.value
        #expect(lines.count(.info, containing: "\(summary.sessionID) finished on") == 1, "\(lines.lines.withLock { $0.map(\.1) })")
        #expect(await keeper.heldCount == 0)
    }
}
