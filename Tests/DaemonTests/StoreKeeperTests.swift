import Foundation
import Logging
import TestSupport
import Testing
import Workout
@testable import Daemon
@testable import Store

/// The daemon keeps its store on a sound, writable file without a restart: memory is written
/// out once the state directory can be written, and a page damaged under it is found by the
/// check of the file on disk at the round it is due, moved aside and replaced, with what the
/// daemon could still read.
@Suite("Store keeper")
struct StoreKeeperTests {
    typealias Lines = HeldSessionTests.Lines

    static func keeper(_ store: GatewayStore, _ lines: Lines) -> (StoreKeeper, StoreWatch) {
        let sessions = FinishedSessionKeeper(store: store, window: .seconds(1), logger: lines.logger)
        let watch = StoreWatch(store: store, keeper: sessions, lowSpaceBytes: 0, movedAside: nil, logger: lines.logger)
        watch.start()
        return (StoreKeeper(store: store, storeWatch: watch, tick: .seconds(5), checkEvery: .seconds(30), timers: ContinuousClock(), logger: lines.logger), watch)
    }

    static func summary(_ number: Int) -> SessionSummary {
        let machine = MachineIdentity(name: "SF-Bike-0001", address: "C0:11:22:33:44:01", model: "SF-Bike-M1", type: .bike)
        let start = UTCTime(secondsSince1970: 1_795_248_000 + Int64(number) * 3600)
        let detail = SessionDetail(
            machine: machine, elapsed: 1800, paused: 0, averagePower: 150, energyMethod: .counter,
            distanceMethod: .counter, sampleCount: 1800, endReason: .stopped)
        return SessionSummary(
            sessionID: String(format: "00000000-0000-4000-8000-%012d", number), startedAt: start, endedAt: start.adding(seconds: 1800),
            duration: 1800, totalEnergy: 100, totalDistance: 10_000, detail: detail)
    }

    @Test func aPageDamagedUnderTheDaemonIsFoundAtTheDueRoundAndReplaced() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        for number in 0..<200 { try await store.enqueue(Self.summary(number)) }
        try await store.database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        #expect(try await store.counts().pending == 200)
        let lines = Lines()
        let (keeper, watch) = Self.keeper(store, lines)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: store.path)[.size] as? Int)
        let handle = try #require(FileHandle(forUpdatingAtPath: store.path))
        try handle.seek(toOffset: UInt64(size / 4096 / 2 * 4096))
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 4096))
        try handle.close()
        for _ in 0..<5 { await keeper.round() }
        #expect(DamagedFiles.list(in: directory.path).isEmpty, "checked before its 30 s were up")
        await keeper.round()
        #expect(DamagedFiles.list(in: directory.path).count == 1)
        #expect(lines.count(.critical, containing: "DAMAGED under the running daemon") == 1)
        let status = await watch.status()
        #expect(status.movedAside != nil)
        #expect(status.writable)
        #expect(store.checkOnDisk() == .sound)
        #expect(try await store.counts().pending > 0)
        try await store.enqueue(Self.summary(999))
    }

    @Test func memoryIsWrittenOutAtTheFirstRoundTheDirectoryCanBeWritten() async throws {
        let directory = try TemporaryDirectory()
        let blocker = directory.path + "/card"
        #expect(FileManager.default.createFile(atPath: blocker, contents: Data()))
        let store = try GatewayStore.keptInMemory(directory: blocker, because: WriteFailure(cause: .readOnly, detail: "test"))
        let lines = Lines()
        let (keeper, watch) = Self.keeper(store, lines)
        try await store.enqueue(Self.summary(1))
        await keeper.round()
        #expect(store.isInMemory)
        let held = await watch.status()
        #expect(held.inMemory)
        #expect(!held.writable)
        #expect(held.cause == "read_only")
        try FileManager.default.removeItem(atPath: blocker)
        await keeper.round()
        #expect(!store.isInMemory)
        #expect(await watch.status().writable)
        #expect(lines.count(.notice, containing: "what the store kept in memory is written") == 1)
        #expect(try await store.counts().pending == 1)
        #expect(FileManager.default.fileExists(atPath: blocker + "/" + GatewayStore.fileName))
    }
}
