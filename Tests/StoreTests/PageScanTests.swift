import DeterministicRandom
import TestSupport
import Foundation
import GRDB
import Testing
import Workout
@testable import Store

/// The page scanner reads SQLite's record format itself: it must find every row SQLite has
/// (long ones through their overflow pages too), at any page size, and never trap on garbage.
@Suite("Page scan")
struct PageScanTests {
    /// A store with `count` sessions and one whose summary is longer than a page.
    static func store(in directory: TemporaryDirectory, count: Int, pageSize: Int = 4096) async throws -> [String] {
        let path = directory.file(GatewayStore.fileName)
        if pageSize != 4096 {
            let database = try DatabaseQueue(path: path)
            try await database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA page_size = \(pageSize); CREATE TABLE sizing (x); DROP TABLE sizing") }
            try database.close()
        }
        let store = try GatewayStore(directory: directory.path)
        try await store.enqueue((0..<count).map { Sessions.summary($0, offset: $0 * 60) })
        // A summary longer than any page: its record goes on over overflow pages.
        let long = Sessions.id(9999)
        let padding = String(repeating: "x", count: 3 * 65_536)
        try await store.database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO sessions VALUES (?, 0, 0, 0, 0, 0, ?, 'gateway', 'uploaded', 0, 0, NULL, 0, 0, 'true', NULL, NULL, NULL)
                    """,
                arguments: [long, #"{"session_id":"\#(long)","started_at":"2026-11-21T08:00:00Z","ended_at":"2026-11-21T08:30:00Z","duration":1800,"total_energy":1,"total_distance":2,"padding":"\#(padding)"}"#])
        }
        try store.close()
        return (0..<count).map(Sessions.id) + [long]
    }

    @Test(arguments: [1024, 4096, 65_536])
    func everySessionRowSQLiteHasIsFoundOnThePages(pageSize: Int) async throws {
        let directory = try TemporaryDirectory(prefix: "ftms-scan")
        let ids = try await Self.store(in: directory, count: 40, pageSize: pageSize)
        let found = SessionRowScan.scan(directory.file(GatewayStore.fileName))
        #expect(Set(found.sessions.map(\.record.sessionID)) == Set(ids))
        #expect(found.sessions.count == ids.count)
        #expect(found.sessions.first { $0.record.sessionID == Sessions.id(9999) }?.uploaded == true)
        #expect(found.sessions.first { $0.record.sessionID == Sessions.id(3) }?.record.totalDistance == 10_000)
        // Without its header, at every page size tried.
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: directory.file(GatewayStore.fileName))))
        let headless = [UInt8](repeating: 0xA5, count: 100) + bytes.dropFirst(100)
        #expect(Set(SessionRowScan.sessions(in: SessionRowScan.scanFile(headless)).sessions.map(\.record.sessionID)) == Set(ids))
    }

    /// Rows still in the WAL (the daemon killed before a checkpoint) are read from its frames.
    @Test func rowsInTheWALAreFound() async throws {
        let directory = try TemporaryDirectory(prefix: "ftms-scan")
        let store = try GatewayStore(directory: directory.path)
        try await store.enqueue((0..<5).map { Sessions.summary($0, offset: $0 * 60) })
        let wal = directory.file(GatewayStore.fileName) + "-wal"
        let copy = directory.file("copy.sqlite")
        try FileManager.default.copyItem(atPath: directory.file(GatewayStore.fileName), toPath: copy)
        try FileManager.default.copyItem(atPath: wal, toPath: copy + "-wal")
        try store.close()
        #expect(SessionRowScan.scan(copy).sessions.count == 5)
        try FileManager.default.removeItem(atPath: copy + "-wal")
        #expect(SessionRowScan.scan(copy).sessions.count < 5, "the rows were in the WAL only")
    }

    /// Random pages, garbled real pages, cut files: rows or none, never a trap. Each garbled
    /// file keeps the rows of the pages it did not touch.
    @Test func garbageNeverTraps() async throws {
        let directory = try TemporaryDirectory(prefix: "ftms-scan")
        _ = try await Self.store(in: directory, count: 30)
        let sound = Array(try Data(contentsOf: URL(fileURLWithPath: directory.file(GatewayStore.fileName))))
        var random = SplitMix64(seed: 36)
        for round in 0..<300 {
            var bytes = sound
            switch round % 4 {
            case 0:
                bytes = random.bytes(count: Int(random.next() % 70_000))
            case 1:
                for _ in 0..<Int(1 + random.next() % 64) {
                    bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
                }
            case 2:
                bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count))))
            default:
                // A leaf whose header says anything: every cell count, pointer and varint.
                let page = 4096 * Int(1 + random.next() % UInt64(bytes.count / 4096 - 1))
                bytes[page] = 13
                for offset in 1..<64 { bytes[page + offset] = UInt8(truncatingIfNeeded: random.next()) }
            }
            _ = SessionRowScan.sessions(in: SessionRowScan.scanFile(bytes) + SessionRowScan.scanWAL(bytes))
            _ = PageScanner.record(random.bytes(count: Int(random.next() % 200)))
        }
    }

    @Test func varintsAndRecordsAsTheFormatSays() {
        func varint(_ bytes: [UInt8]) -> [Int64]? { PageScanner.varint(bytes, at: 0, end: bytes.count).map { [$0.0, Int64($0.1)] } }
        #expect(varint([0x7F]) == [127, 1])
        #expect(varint([0x81, 0x00]) == [128, 2])
        #expect(varint([UInt8](repeating: 0xFF, count: 9)) == [-1, 9])
        #expect(PageScanner.varint([0x81], at: 0, end: 1) == nil, "cut short")
        // Header 5 bytes: NULL, int8, text of 2, float; then -2, "hi", 1.5.
        let record: [UInt8] = [5, 0, 1, 17, 7, 0xFE, 0x68, 0x69] + withUnsafeBytes(of: (1.5).bitPattern.bigEndian, Array.init)
        #expect(PageScanner.record(record) == [.null, .integer(-2), .text(Array("hi".utf8)), .real(1.5)])
        #expect(PageScanner.record([5, 0, 1, 17, 7, 0xFE]) == nil, "bodies cut short")
        #expect(PageScanner.record([2, 10]) == nil, "reserved serial type")
    }
}
