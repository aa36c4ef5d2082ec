import TestSupport
import Foundation
import GRDB
import Testing
import Workout
@testable import Store

/// contract §6: a bad page does not stop the gym. Each kind of damage a power cut or a worn SD
/// card leaves, made on a real store file (300 queued sessions, a login, an open session's
/// checkpoint): the store says the file is *damaged* and leaves it as it is; the daemon's open
/// moves it aside (renamed with the time, never deleted) and starts on a fresh store that keeps
/// the device id and the login when they can be read; `salvage` then queues every session on a
/// readable page, exactly once however often it runs.
@Suite("Damaged stores")
struct DamageTests {
    enum Damage: String, CaseIterable, Sendable {
        /// The 100-byte header overwritten.
        case header
        /// A page of the sessions table in the middle of the file overwritten.
        case middlePage
        /// The file's last page overwritten.
        case lastPage
        /// The file cut at half its pages.
        case truncated
        /// Every byte zero.
        case zeroed
        /// The whole first page (header and schema) overwritten: SQLite can read nothing.
        case firstPage
    }

    static let sessionCount = 300
    static let tokens = StoredTokens(
        accessToken: "access-token-1234567890", refreshToken: "refresh-token-1234567890", issuedAt: Sessions.origin,
        expiresAt: Sessions.origin.adding(seconds: 3600))

    /// Where each table's rows are in a sound file, from SQLite's own `dbstat`.
    struct Layout {
        var pageSize = 0
        var pageCount = 0
        /// The sessions table's leaf pages and how many rows each holds.
        var sessionLeaves: [Int: Int] = [:]
        var checkpointPages: Set<Int> = []
        var devicePages: Set<Int> = []
        var accountPages: Set<Int> = []

        init(_ path: String) throws {
            var configuration = Configuration()
            configuration.readonly = true
            let database = try DatabaseQueue(path: path, configuration: configuration)
            try database.read { db in
                pageSize = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0
                pageCount = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
                for row in try Row.fetchAll(db, sql: "SELECT name, pageno, pagetype, ncell FROM dbstat") {
                    let page: Int = row["pageno"]
                    switch row["name"] as String {
                    case "sessions" where (row["pagetype"] as String) == "leaf": sessionLeaves[page] = row["ncell"]
                    case "checkpoints": checkpointPages.insert(page)
                    case "device": devicePages.insert(page)
                    case "account": accountPages.insert(page)
                    default: break
                    }
                }
            }
            try database.close()
        }
    }

    /// A sound store as the daemon leaves it after a clean stop; returns its device id and layout.
    static func makeStore(in directory: TemporaryDirectory) async throws -> (deviceID: String, open: SessionSnapshot, layout: Layout) {
        let store = try GatewayStore(directory: directory.path)
        try await store.saveTokens(tokens)
        let open = try CheckpointStoreTests.snapshot(machine: MachineIdentity(name: "SF-Bike-0009", address: "C0:11:22:33:44:09", type: .bike), seed: 9)
        try await store.save(open)
        _ = try await store.enqueue((0..<sessionCount).map { Sessions.summary($0, offset: $0 * 60, distance: 1000 + $0) })
        try await store.record([Sessions.id(0): .uploaded, Sessions.id(1): .dead(error: "validation_error")])
        let deviceID = store.deviceID
        try store.close()
        return (deviceID, open, try Layout(directory.file(GatewayStore.fileName)))
    }

    /// Damages the file; returns the pages it damaged (all pages past the cut for a truncation).
    static func damage(_ path: String, _ damage: Damage, _ layout: Layout) throws -> Set<Int> {
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        defer { try? handle.close() }
        func overwrite(page: Int, byte: UInt8) throws {
            try handle.seek(toOffset: UInt64((page - 1) * layout.pageSize))
            try handle.write(contentsOf: Data(repeating: byte, count: layout.pageSize))
        }
        switch damage {
        case .header:
            try handle.seek(toOffset: 0)
            try handle.write(contentsOf: Data(repeating: 0xA5, count: 100))
            return []
        case .middlePage:
            let page = try #require(layout.sessionLeaves.keys.min { abs($0 - layout.pageCount / 2) < abs($1 - layout.pageCount / 2) })
            try overwrite(page: page, byte: 0xFF)
            return [page]
        case .lastPage:
            try overwrite(page: layout.pageCount, byte: 0xFF)
            return [layout.pageCount]
        case .truncated:
            let kept = layout.pageCount / 2
            try handle.truncate(atOffset: UInt64(kept * layout.pageSize))
            return Set((kept + 1)...layout.pageCount)
        case .zeroed:
            try handle.seek(toOffset: 0)
            try handle.write(contentsOf: Data(count: layout.pageCount * layout.pageSize))
            return Set(1...layout.pageCount)
        case .firstPage:
            try overwrite(page: 1, byte: 0x5A)
            return [1]
        }
    }

    @Test(arguments: Damage.allCases)
    func aDamagedStoreIsMovedAsideAndItsReadableSessionsSalvagedOnce(_ kind: Damage) async throws {
        let directory = try TemporaryDirectory(prefix: "ftms-damage")
        let path = directory.file(GatewayStore.fileName)
        let (deviceID, open, layout) = try await Self.makeStore(in: directory)
        #expect(layout.sessionLeaves.values.reduce(0, +) == Self.sessionCount)
        let damaged = try Self.damage(path, kind, layout)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        // What the damaged file itself yields: without the session journal, which would put
        // the pending sessions back at the open (SalvageKindsTests has both).
        try FileManager.default.removeItem(atPath: directory.file(SessionJournal.fileName))

        // A command's open: damaged, said so, the file left as it is.
        do {
            _ = try GatewayStore(directory: directory.path)
            Issue.record("the \(kind) store opened")
        } catch StoreError.damaged(let failing, let reason) {
            #expect(failing == path)
            #expect(!reason.isEmpty && !reason.contains("\n"))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)

        // The daemon's open: moved aside, never deleted; a fresh store in its place.
        let clock = ManualClock.atOrigin()
        let (store, movedAside) = try GatewayStore.openMovingDamagedAside(directory: directory.path, clock: clock.wall)
        let moved = try #require(movedAside)
        #expect(moved.path == path + ".damaged-20261121T080000Z")
        #expect(try Data(contentsOf: URL(fileURLWithPath: moved.path)) == bytes, "moved as it was")
        #expect(DamagedFiles.list(in: directory.path).map(\.path) == [moved.path])
        #expect(DamagedFiles.list(in: directory.path).first?.movedAt == Sessions.origin)
        #expect(try await store.integrityCheck() == ["ok"])
        try await store.enqueue(Sessions.summary(5000, offset: 0))
        // The device id outlives the file (its own file beside it), whatever the damage.
        #expect(moved.keptDeviceID)
        #expect(store.deviceID == deviceID)
        let loginReadable = ![.zeroed, .firstPage].contains(kind) && damaged.isDisjoint(with: layout.accountPages)
        #expect(moved.keptLogin == loginReadable)
        #expect(try await store.accountState().loggedIn == loginReadable)

        // Salvage: every session on a readable page, as it was queued; the open one closed
        // (SQLite reads checkpoints, the page scan only sessions).
        guard kind != .zeroed else {
            await #expect(throws: StoreError.self) { try await store.salvage(from: moved.path) }
            return
        }
        let lost = damaged.compactMap { layout.sessionLeaves[$0] }.reduce(0, +)
        let openReadable = damaged.isDisjoint(with: layout.checkpointPages) && kind != .firstPage
        let report = try await store.salvage(from: moved.path)
        #expect(report.sessionsRead == Self.sessionCount - lost + (openReadable ? 1 : 0), "\(report)")
        #expect(report.openSessionsClosed == (openReadable ? 1 : 0))
        #expect(report.headerRebuilt == (kind == .header))
        #expect(report.unreadableBySQLite == (kind == .firstPage))
        #expect(report.alreadyQueued == 0)
        #expect(lost == 0 || report.skippedRows > 0)
        let queued = try await store.sessions()
        let salvaged = queued.filter { $0.sessionID != Sessions.id(5000) }
        #expect(salvaged.count == report.sessionsRead)
        for session in salvaged where session.sessionID != open.sessionID {
            let number = try #require(Int(session.sessionID.suffix(12)))
            #expect(session.totalDistance == 1000 + number, "the row as it was queued")
            #expect(session.status == (number == 0 ? .uploaded : .pending), "\(session.sessionID)")
        }
        if openReadable { #expect(salvaged.contains { $0.sessionID == open.sessionID && $0.status == .pending }) }

        // Again: nothing new, nothing doubled.
        let again = try await store.salvage(from: moved.path)
        #expect(again.queuedPending == 0 && again.queuedUploaded == 0)
        #expect(again.alreadyQueued == report.sessionsRead)
        #expect(try await store.sessions().count == queued.count)
        #expect(try Data(contentsOf: URL(fileURLWithPath: moved.path)) == bytes, "salvage reads a copy")
    }

    /// Readable pages may still hold values of the wrong type (a blob where JSON was, text where
    /// a time was): salvage counts the rows that hold no session or checkpoint as malformed and
    /// reads on, the fresh store's identity keeps the tokens beside a time SQLite reads as 0,
    /// and the live store names the bad checkpoint: nothing traps, every good session is read.
    @Test func rowsOfTheWrongTypeAreCountedNeverTrappedOn() async throws {
        let directory = try TemporaryDirectory(prefix: "ftms-damage")
        let store = try GatewayStore(directory: directory.path)
        try await store.saveTokens(Self.tokens)
        try await store.enqueue([Sessions.summary(1, offset: 0), Sessions.summary(2, offset: 60)])
        let open = try CheckpointStoreTests.snapshot(seed: 5)
        try await store.save(open)
        try await store.database.write { db in
            try db.execute(sql: "UPDATE account SET access_issued_at = 'not a time'")
            try db.execute(
                sql: """
                    INSERT INTO sessions VALUES ('bad-1', 0, 0, 0, 0, 0, x'00ff', 'gateway', 'pending', 0, 0, NULL, 0, 0, 'true', NULL, NULL, NULL);
                    INSERT INTO sessions VALUES ('bad-2', 0, 0, 0, 0, 0, '{"session_id":"bad-2"}', 'gateway', 'pending', 0, 0, NULL, 0, 0, 'true', NULL, NULL, NULL);
                    INSERT INTO checkpoints VALUES ('bad-3', 'C0:11:22:33:44:07', x'00ff', 0);
                    INSERT INTO checkpoints VALUES ('bad-4', 'C0:11:22:33:44:08', '{"version":1}', 0);
                    """)
        }
        await #expect(throws: StoreError.self) { try await store.loadAll() }
        try store.close()

        let identity = StoreIdentity(salvagedFrom: directory.file(GatewayStore.fileName))
        #expect(identity.deviceID == store.deviceID)
        #expect(identity.account?.tokens?.refreshToken == Self.tokens.refreshToken)
        #expect(identity.account?.accessIssuedAt == UTCTime(millisecondsSince1970: 0))
        let elsewhere = try TemporaryDirectory(prefix: "ftms-damage")
        let fresh = try GatewayStore(directory: elsewhere.path)
        let report = try await fresh.salvage(from: directory.file(GatewayStore.fileName))
        #expect(report.malformedRows == 4)
        #expect(report.sessionsRead == 3 && report.openSessionsClosed == 1)
        #expect(Set(try await fresh.sessions().map(\.sessionID)) == [Sessions.id(1), Sessions.id(2), open.sessionID])
    }

    /// A database that is sound but cannot be written is never called damaged, never moved.
    @Test func aSoundStoreThatCannotBeOpenedIsNotMovedAside() async throws {
        let directory = try TemporaryDirectory(prefix: "ftms-damage")
        let store = try GatewayStore(directory: directory.path)
        try await store.database.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future')")
        }
        try store.close()
        #expect(throws: StoreError.newerSchema(path: directory.file(GatewayStore.fileName), migration: "v99-from-the-future")) {
            _ = try GatewayStore.openMovingDamagedAside(directory: directory.path)
        }
        #expect(DamagedFiles.list(in: directory.path).isEmpty)
        #expect(FileManager.default.fileExists(atPath: directory.file(GatewayStore.fileName)))
    }

    /// The device row's own bytes, for a file SQLite can read nothing of.
    @Test func theDeviceIDIsFoundInRawBytes() {
        let id = "806a2f1d-90b8-484d-b1ac-74f7f4039f18"
        let record: [UInt8] = [0x2E, 0x01, 0x04, 0x00, 0x55, 0x05] + Array(id.utf8) + [0x00, 0x01, 0x9A, 0x00, 0x00, 0x00]
        #expect(DamagedStoreReader.deviceID(in: [UInt8](repeating: 0xFF, count: 300) + record + [0, 0]) == id)
        #expect(DamagedStoreReader.deviceID(in: [0x04, 0x00, 0x55, 0x05] + Array("806a2f1d-90b8-484d-b1ac-74f7f4039f1Z".utf8)) == nil)
    }
}
