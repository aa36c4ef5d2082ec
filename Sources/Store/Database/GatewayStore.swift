public import Clocks
import ProcessOutput
import GRDB
import Synchronization
import Workout
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The gateway's durable state (contract §6): one SQLite database in the state directory
/// holding the device id, the tokens, the session queue, open-session checkpoints, the stats,
/// the trainings cache and the last upload's result.
///
/// WAL with `synchronous=FULL`: in WAL mode `NORMAL` may roll back the last commits after a
/// power loss, and a session the gateway has accepted must survive the gym's breaker. The
/// file and its WAL are mode 0600 because they hold the tokens.
///
/// GRDB's `DatabaseQueue` serialises every access on its own dispatch queue, so the store is
/// a `Sendable` value shared by the daemon's tasks; several processes (the daemon and an
/// operator's `ftms-bridge queue`) may open the same file, and wait up to ``busyTimeout`` for
/// each other's write locks.
public final class GatewayStore: Sendable {
    /// The database's name inside the state directory.
    public static let fileName = "ftms-bridge.sqlite"
    /// How long a writer waits for another process's lock before failing.
    public static let busyTimeout: Double = 10

    /// SQLite's page cache per connection, in KiB (`PRAGMA cache_size = -512`). SQLite's own
    /// default is 2 MB, which a daemon that runs for months fills page by page with anonymous
    /// memory it never gives back; the riding path touches a few pages per checkpoint, and an
    /// upload's reads of finished sessions go through the OS's page cache (clean, shared,
    /// reclaimable) just as well. Bounded small, the daemon's anonymous memory is flat from the start.
    public static let pageCacheKiB = 512

    public let path: String
    /// The state directory holding ``path``.
    public let directory: String
    /// The UUID this gateway presents as `device_id`: made on first open, kept forever (also
    /// across logout, so the backend's binding recognises the gateway when it logs in again).
    public let deviceID: String
    /// The connection in use now: the file's, or one in memory while the file cannot be written
    /// (``StoreBacking``). Replaced whole, never touched in place; read it through ``current``.
    let backing: Mutex<StoreBacking>
    let clock: WallClock
    /// How many uploaded sessions keep their plot series (``defaultSeriesRetention``).
    let seriesRetention: Int
    /// The room kept for finished sessions on a full disk (the daemon's store only).
    let reserve: StoreReserve?
    let healthState: Mutex<HealthState>
    /// The second copy of every session not acknowledged yet (nil for a reader).
    let journal: SessionJournal?
    /// What the open found in the journal: sessions put back in the queue, damaged stretches.
    public let journalReplay: JournalReplay
    /// Whether the store in memory started as a copy of the file (so writing it back replaces
    /// the file whole); see ``writeMemoryToFile()``.
    let seededFromFile = Mutex(false)
    /// A read met damage or an I/O error since ``takeTrouble()`` was last asked: the daemon
    /// checks the file at once rather than at its next round.
    let troubleSeen = Mutex(false)

    /// Opens (creating if needed) the database in `directory`, migrating it to this build's
    /// schema. Throws ``StoreError/damaged(path:reason:)`` for a file that is corrupt or not a
    /// database, ``StoreError/inaccessible(path:reason:)`` for one this process cannot open for
    /// writing (a read-only file system, permissions: the file is not known to be damaged), and
    /// ``StoreError/newerSchema(path:migration:)`` for one from a newer build: never an empty
    /// store in place of the file (the daemon moves only a damaged one aside:
    /// ``openMovingDamagedAside(directory:clock:seriesRetention:reserve:)``).
    ///
    /// `reserve`: the ballast the daemon keeps for a full disk (``StoreReserve``), made here.
    /// `machineIDPath`: the machine id a new store derives its device id from when the state
    /// directory has none (``MachineAppID``); nil, a random one.
    public convenience init(
        directory: String, clock: WallClock = .system, seriesRetention: Int = GatewayStore.defaultSeriesRetention,
        reserve: StoreReserve? = nil, machineIDPath: String? = nil
    ) throws {
        var identity = StoreIdentity()
        identity.machineIDPath = machineIDPath
        try self.init(directory: directory, clock: clock, seriesRetention: seriesRetention, reserve: reserve, identity: identity)
    }

    /// `identity`: the device id and login a fresh database takes over from a damaged one.
    convenience init(directory: String, clock: WallClock, seriesRetention: Int, reserve: StoreReserve?, identity: StoreIdentity) throws {
        let (path, database, deviceID) = try Self.openFile(in: directory, clock: clock, identity: identity)
        let held = reserve?.make()
        self.init(
            path: path, directory: directory, deviceID: deviceID, queue: database, clock: clock, seriesRetention: seriesRetention,
            reserve: reserve, health: .sound(reserve: held.map { $0 ? .held : .missing } ?? .none))
    }

    /// A store on a connection opened already: the file's, or one in memory (``StoreBacking``;
    /// `health.inMemory` says why). The session journal is read into it either way: a database
    /// the card can no longer give back loses no session the journal still holds. Appends fail
    /// while the directory is read-only (the journal's lastFailure says so); the sessions are in
    /// memory meanwhile.
    init(
        path: String, directory: String, deviceID: String, queue: DatabaseQueue, clock: WallClock, seriesRetention: Int,
        reserve: StoreReserve?, health: StoreHealth
    ) {
        backing = Mutex(StoreBacking(queue: queue, generation: 0, inMemory: health.inMemory))
        self.deviceID = deviceID
        let journal = SessionJournal(directory: directory)
        self.journal = journal
        journalReplay = Self.replaying(journal, into: queue, now: clock.now())
        self.path = path
        self.directory = directory
        self.clock = clock
        self.seriesRetention = seriesRetention
        self.reserve = reserve
        healthState = Mutex(HealthState(health: health))
    }

    /// Opens (creating, migrating) the database file in `directory` for writing, mode 0600:
    /// its path, connection and device id.
    static func openFile(in directory: String, clock: WallClock, identity: StoreIdentity) throws -> (String, DatabaseQueue, String) {
        let path = try Self.prepareFile(in: directory)
        var configuration = Configuration()
        configuration.busyMode = .timeout(Self.busyTimeout)
        configuration.label = "ftms-bridge.store"
        // Not `configuration.journalMode = .wal`: GRDB then sets `synchronous = NORMAL`.
        configuration.prepareDatabase { db in
            guard try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") == "wal" else {
                throw StoreError.inaccessible(path: path, reason: FileAccess.writeProblem(path: path) ?? "SQLite cannot switch it to WAL mode")
            }
            try db.execute(sql: "PRAGMA synchronous = FULL")
            try db.execute(sql: "PRAGMA cache_size = -\(GatewayStore.pageCacheKiB)")
        }
        let (database, deviceID) = try Self.opening(path) {
            let database = try DatabaseQueue(path: path, configuration: configuration)
            return (database, try Self.prepareSchema(database, path: path, now: clock.now(), identity: identity))
        }
        try Self.restrictMode(of: path)
        return (path, database, deviceID)
    }

    /// Opens the database in `directory` read-only, beside the daemon that writes it (the
    /// dashboard's session pages): nothing is created, migrated or chmod-ed, and every
    /// write fails. The file must exist and be at this build's schema.
    public init(readingFrom directory: String, clock: WallClock = .system) throws {
        let path = directory.hasSuffix("/") ? directory + Self.fileName : directory + "/" + Self.fileName
        guard FileManager.default.fileExists(atPath: path) else {
            throw StoreError.unreadable(path: path, reason: "no database yet (the daemon makes it on its first start)")
        }
        let (database, deviceID) = try Self.opening(path) {
            // On a read-only file system too (`ftms-bridge queue` beside a daemon in memory).
            let database = try Self.readOnlyQueue(path)
            let deviceID = try database.read { db in
                let applied = try Self.appliedKnownMigrations(db, path: path)
                if let missing = StoreSchema.migrator.migrations.first(where: { !applied.contains($0) }) {
                    throw StoreError.unreadable(path: path, reason: "written by an older ftms-bridge (no migration \(missing) yet): restart the daemon first")
                }
                return try DeviceRow.deviceID(db) ?? ""
            }
            return (database, deviceID)
        }
        backing = Mutex(StoreBacking(queue: database, generation: 0, inMemory: nil))
        self.deviceID = deviceID
        self.path = path
        self.directory = directory
        self.clock = clock
        seriesRetention = Self.defaultSeriesRetention
        reserve = nil
        healthState = Mutex(HealthState(health: .sound(reserve: .none)))
        journal = nil
        journalReplay = JournalReplay()
    }

    /// Checks the file's integrity, refuses a newer schema, migrates, and returns the device id
    /// (made here the first time, or taken over from a damaged database with its login).
    static func prepareSchema(_ database: DatabaseQueue, path: String, now: UTCTime, identity: StoreIdentity) throws -> String {
        let migrator = StoreSchema.migrator
        try database.read { db in
            let problems = try String.fetchAll(db, sql: "PRAGMA quick_check")
            guard problems == ["ok"] else {
                throw StoreError.damaged(path: path, reason: Self.oneLine(problems.joined(separator: " ")))
            }
            _ = try appliedKnownMigrations(db, path: path)
        }
        try migrator.migrate(database)
        let identityFile = DeviceIdentityFile(directory: (path as NSString).deletingLastPathComponent)
        let filed = identityFile.read()
        let stored = try database.write { db in
            let newID = identity.deviceID ?? filed ?? identity.machineIDPath.flatMap { MachineAppID.deviceID(machineIDPath: $0) } ?? UUID().uuidString.lowercased()
            try DeviceRow(deviceID: newID, createdAt: now).insert(db, onConflict: .ignore)
            // A login row that does not fit is left out: the fresh store then asks for a login.
            try? identity.account?.insert(db, onConflict: .ignore)
            guard let id = try DeviceRow.deviceID(db) else {
                throw StoreError.damaged(path: path, reason: "it has no device id row")
            }
            return id
        }
        // The database's id wins (an existing gateway keeps its id) and is kept beside it. A
        // directory that cannot take the file leaves the id in the database alone, as before.
        if filed != stored { try? identityFile.write(stored) }
        return stored
    }

    /// Runs the opening of the file at `path`, turning SQLite's errors into the store's: a
    /// corrupt file or one that is not a database is damaged, one this process may not write is
    /// inaccessible (with the file system's reason), anything else is unreadable. Ours pass as
    /// they are.
    static func opening(_ path: String, _ body: () throws -> (DatabaseQueue, String)) throws -> (DatabaseQueue, String) {
        do {
            return try body()
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError {
            let failure = WriteFailure(error)
            switch failure.cause {
            case .damaged:
                throw StoreError.damaged(path: path, reason: failure.detail)
            case .readOnly, .noAccess, .full:
                throw StoreError.inaccessible(path: path, reason: FileAccess.writeProblem(path: path) ?? failure.description)
            case .ioError, .busy, .other:
                throw StoreError.unreadable(path: path, reason: failure.description)
            }
        }
    }

    /// The migrations applied to the file; one this build does not know (a newer build's) is
    /// ``StoreError/newerSchema(path:migration:)``.
    static func appliedKnownMigrations(_ db: Database, path: String) throws -> Set<String> {
        let migrator = StoreSchema.migrator
        let applied = try migrator.appliedIdentifiers(db)
        if let unknown = applied.subtracting(migrator.migrations).sorted().first {
            throw StoreError.newerSchema(path: path, migration: unknown)
        }
        return applied
    }

    /// Creates the directory (0700) and an empty database file (0600) when missing, so the
    /// file never exists, even for an instant, with a wider mode. SQLite gives the WAL and
    /// shared-memory files the database file's mode.
    static func prepareFile(in directory: String) throws -> String {
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            do {
                try FileManager.default.createDirectory(
                    atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw StoreError.directory(path: directory, reason: "cannot create it (\(error.localizedDescription))")
            }
        } else if !isDirectory.boolValue {
            throw StoreError.directory(path: directory, reason: "not a directory")
        }
        let path = directory.hasSuffix("/") ? directory + fileName : directory + "/" + fileName
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let code = errno
            throw StoreError.inaccessible(path: path, reason: FileAccess.writeProblem(path: path) ?? FileAccess.errnoLine(code))
        }
        Glibc.close(descriptor)
        return path
    }

    /// A database from an older build, or copied in by hand, may be wider than 0600.
    private static func restrictMode(of path: String) throws {
        for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
            guard chmod(file, 0o600) == 0 else {
                throw StoreError.inaccessible(path: file, reason: "cannot set mode 0600: \(FileAccess.errnoLine(errno))")
            }
        }
    }

    func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await onCurrent(write: false, value)
        } catch let error as DatabaseError {
            if [.SQLITE_CORRUPT, .SQLITE_NOTADB, .SQLITE_IOERR].contains(error.resultCode) { troubleSeen.withLock { $0 = true } }
            throw StoreError.database(Self.oneLine(error))
        }
    }

    /// ``read(_:)`` of rows whose values may not decode (a checkpoint of another layout, JSON
    /// cut short): such a row is ``StoreError/badRecord(what:reason:)`` naming `what`, never
    /// a row silently left out.
    func read<T: Sendable>(decoding what: String, _ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await read(value)
        } catch let error as DecodingError {
            throw StoreError.badRecord(what: what, reason: "\(error)")
        } catch let error as RowDecodingError {
            throw StoreError.badRecord(what: what, reason: "\(error)")
        }
    }

    /// Closes the connection, folding the WAL into the database file: the daemon's last step
    /// on SIGTERM. Using the store afterwards is an error.
    public func close() throws {
        do {
            try current.queue.close()
        } catch let error as DatabaseError {
            throw StoreError.database(Self.oneLine(error))
        }
    }

    static func oneLine(_ error: DatabaseError) -> String {
        oneLine(error.message ?? "\(error.resultCode)")
    }

    /// SQLite's integrity messages span lines; an operator's error is one.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "; ")
    }

    /// `PRAGMA journal_mode` and `PRAGMA synchronous` as the connection has them: what the
    /// durability tests assert (2 is FULL).
    public func durabilitySettings() async throws -> (journalMode: String, synchronous: Int) {
        try await read { db in
            let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? ""
            let synchronous = try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1
            return (mode, synchronous)
        }
    }

    /// The connection's page-cache bound in KiB, from `PRAGMA cache_size` (negative means KiB).
    public func pageCacheLimitKiB() async throws -> Int {
        try await read { db in
            let setting = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? 0
            return setting < 0 ? -setting : setting * (try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096) / 1024
        }
    }

    /// Names of the migrations applied to this database, in order.
    public func appliedMigrations() async throws -> [String] {
        try await read { db in try StoreSchema.migrator.completedMigrations(db) }
    }

    /// `PRAGMA integrity_check`'s verdict: `["ok"]` for a sound file.
    public func integrityCheck() async throws -> [String] {
        try await read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
    }
}
