import Foundation
import GRDB

/// What a check of the file as it is on disk found (``GatewayStore/checkOnDisk()``).
public enum DiskCheck: Sendable, Hashable {
    case sound
    /// SQLite finds the file corrupt or not a database: its words, one line.
    case damaged(String)
    /// The file could not be checked (an I/O error, no file): its words. Not damage.
    case unreadable(String)
}

extension GatewayStore {
    /// `PRAGMA quick_check` on a connection of its own, read-only, that shares no page cache
    /// with the daemon's: it reads what is on the card, where the daemon's cached pages would
    /// hide a page damaged under it (and a later checkpoint would write them over it). Blocks
    /// while it reads the whole file: run it on a thread of its own.
    ///
    /// quick_check rather than integrity_check: it reads every page and checks each B-tree's
    /// structure and records but not that the indexes match the tables, which is what costs
    /// (docs/sync.md gives its cost on a gateway's store).
    public func checkOnDisk() -> DiskCheck {
        guard !isInMemory else { return .sound }
        do {
            var configuration = Configuration()
            configuration.readonly = true
            configuration.label = "ftms-bridge.store.check"
            configuration.busyMode = .timeout(Self.busyTimeout)
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            let problems = try queue.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
            return problems == ["ok"] ? .sound : .damaged(Self.oneLine(problems.joined(separator: " ")))
        } catch let error as DatabaseError {
            switch error.resultCode {
            case .SQLITE_CORRUPT, .SQLITE_NOTADB: return .damaged(Self.oneLine(error))
            default: return .unreadable(Self.oneLine(error))
            }
        } catch {
            return .unreadable("\(error)")
        }
    }

    /// Whether a read or write met damage or an I/O error since the last call.
    public func takeTrouble() -> Bool {
        troubleSeen.withLock { seen in
            defer { seen = false }
            return seen
        }
    }

    /// Moves the damaged file aside while the daemon runs and goes on with a fresh one, without
    /// a restart: every row the daemon's connection can still read (the pending queue, open
    /// checkpoints, the login) is carried into the fresh store; the device id is kept. If the
    /// fresh file cannot be written, the store stays in memory (``writeMemoryToFile()`` later).
    /// The file moved aside waits for `ftms-bridge salvage`.
    public func replaceDamagedFile(reason: String) throws -> MovedAside {
        let failure = WriteFailure(cause: .damaged, detail: reason)
        let deviceID = deviceID
        let now = clock.now()
        let old = try replaceConnection(inMemory: failure) { db in
            let queue = try Self.memoryQueue()
            try StoreSchema.migrator.migrate(queue)
            try queue.writeWithoutTransaction { memory in
                try TableCopy.copy(from: db, to: memory)
                try DeviceRow(deviceID: deviceID, createdAt: now).insert(memory, onConflict: .ignore)
            }
            return queue
        }
        seededFromFile.withLock { $0 = false }
        try? old.close()
        let moved = try DamagedFiles.moveAside(path, at: now)
        var keptLogin = try current.queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM account") ?? 0 } > 0
        if !keptLogin, let account = StoreIdentity(salvagedFrom: moved).account {
            try current.queue.write { db in try account.insert(db, onConflict: .ignore) }
            keptLogin = true
        }
        // Sessions on the damaged pages that the daemon's connection could not read are still in
        // the journal, their second copy: back in the queue before the fresh file is written.
        if let journal { _ = Self.replaying(journal, into: current.queue, now: now) }
        _ = try? writeMemoryToFile()
        return MovedAside(path: moved, reason: reason, at: now, keptDeviceID: true, keptLogin: keptLogin)
    }
}
