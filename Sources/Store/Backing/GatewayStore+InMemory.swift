public import Clocks
import Foundation
import GRDB

extension GatewayStore {
    /// The daemon's store when the state directory cannot be written (contract §6: a card gone
    /// read-only does not stop the gym): a database in memory with this build's schema, seeded
    /// from the file when it can be read (so the login, the pending sessions and the device id
    /// are there), else fresh. Sessions are queued, uploaded and marked in memory;
    /// ``writeMemoryToFile()`` puts them in the file as soon as it can be written.
    ///
    /// `failure`: why the file could not be opened, what `status` says.
    public static func keptInMemory(
        directory: String, because failure: WriteFailure, clock: WallClock = .system,
        seriesRetention: Int = GatewayStore.defaultSeriesRetention, reserve: StoreReserve? = nil, machineIDPath: String? = nil
    ) throws -> GatewayStore {
        let path = directory.hasSuffix("/") ? directory + fileName : directory + "/" + fileName
        let queue = try memoryQueue()
        var seeded = false
        if FileManager.default.fileExists(atPath: path), let file = try? readOnlyQueue(path) {
            seeded = (try? file.read { db in _ = try appliedKnownMigrations(db, path: path) }) != nil
                && (try? file.backup(to: queue)) != nil
            try? file.close()
        }
        var failure = failure
        if !seeded, FileManager.default.fileExists(atPath: path) {
            failure.detail += "; the file could not be read either: started on an empty store in memory"
        }
        // The device id outlives the file (``DeviceIdentityFile``, ``MachineAppID``): a store in
        // memory presents the gateway's own id, never a passing one the backend would refuse.
        var identity = StoreIdentity()
        identity.machineIDPath = machineIDPath
        let deviceID = try prepareSchema(queue, path: path, now: clock.now(), identity: identity)
        let store = GatewayStore(
            path: path, directory: directory, deviceID: deviceID, queue: queue, clock: clock, seriesRetention: seriesRetention,
            reserve: reserve,
            health: .inMemory(failure, since: clock.now(), file: .sound(reserve: reserve == nil ? .none : .missing)))
        store.seededFromFile.withLock { $0 = seeded }
        return store
    }

    /// Whether the store runs in memory now.
    public var isInMemory: Bool { current.inMemory != nil }

    /// Moves the store into memory while the daemon runs (its file became read-only): what the
    /// file's connection reads is copied to memory, and from now on sessions are kept there.
    public func keepInMemory(because failure: WriteFailure) throws {
        guard !isInMemory else { return }
        let old = try replaceConnection(inMemory: failure) { db in
            let queue = try Self.memoryQueue()
            try queue.writeWithoutTransaction { memory in try db.backup(to: memory) }
            return queue
        }
        seededFromFile.withLock { $0 = true }
        try? old.close()
    }

    /// Writes what the store holds in memory to the file and goes on with the file, if the file
    /// can be opened for writing now; returns false (and changes nothing) while it cannot.
    ///
    /// Each session lands once, with the state it has in memory (one uploaded from memory is
    /// stored as uploaded and never sent again): when memory was seeded from this file, the
    /// file is replaced by memory's copy (SQLite's backup, one transaction); else memory's rows
    /// are added to the file's, which keep their own.
    public func writeMemoryToFile() throws -> Bool {
        guard isInMemory else { return false }
        let existed = FileManager.default.fileExists(atPath: path)
        let file: DatabaseQueue
        do {
            var identity = StoreIdentity()
            identity.deviceID = deviceID
            file = try Self.openFile(in: directory, clock: clock, identity: identity).1
        } catch StoreError.inaccessible, StoreError.directory {
            return false
        }
        let replace = seededFromFile.withLock { $0 } || !existed
        let old = try replaceConnection(inMemory: nil) { memory in
            try file.writeWithoutTransaction { db in
                if replace {
                    try memory.backup(to: db)
                } else {
                    try TableCopy.copy(from: memory, to: db)
                }
            }
            return file
        }
        _ = reserve?.make()
        try? old.close()
        return true
    }

    /// A read-only connection to the file as it is on disk; a WAL database whose `-shm` cannot
    /// be made (a read-only directory, the daemon stopped cleanly) is read as immutable.
    static func readOnlyQueue(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(Self.busyTimeout)
        configuration.label = "ftms-bridge.store.reader"
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA cache_size = -\(GatewayStore.pageCacheKiB)") }
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            try queue.read { db in _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
            return queue
        } catch {
            let escaped = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "?#%"))) ?? path
            return try DatabaseQueue(path: "file:\(escaped)?immutable=1", configuration: configuration)
        }
    }

    func setInMemory(_ failure: WriteFailure?) {
        let now = clock.now()
        if let failure {
            update { $0.movedIntoMemory(because: failure, at: now) }
        } else {
            update { $0.backOnFile() }
        }
    }
}

extension StoreError {
    /// Why the state directory's file cannot be written, when that is all this error says (a
    /// read-only file system, no write access, a full disk): the daemon then keeps its store in
    /// memory. Nil for damage, a newer schema, an unreadable file.
    public func unwritableCause(directory: String) -> WriteFailure? {
        let reason: String
        switch self {
        case .inaccessible(_, let why), .directory(_, let why): reason = why
        default: return nil
        }
        let cause: WriteFailure.Cause =
            FileSystemSpace.isReadOnly(directory) || FileSystemSpace.isReadOnly((directory as NSString).deletingLastPathComponent)
            ? .readOnly : reason.contains("ENOSPC") ? .full : .noAccess
        return WriteFailure(cause: cause, detail: reason)
    }
}
