/// Why the store could not do what was asked, as one line an operator can act on.
///
/// A damaged file and an inaccessible one are told apart because their remedies are opposite:
/// the daemon moves a damaged database aside and starts afresh (``GatewayStore/openMovingDamagedAside(directory:clock:seriesRetention:reserve:)``),
/// while a database it merely cannot write (a read-only file system, permissions) is sound and
/// must stay where it is: moving it aside would lose the queue.
public enum StoreError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The file is damaged: SQLite finds it corrupt, or not a database at all.
    case damaged(path: String, reason: String)
    /// The file cannot be opened for writing, for a reason outside it: a read-only file system,
    /// no permission, no space. It is not known to be damaged.
    case inaccessible(path: String, reason: String)
    /// The file cannot be used as it is, for another reason (none yet, an older schema for a
    /// reader, an I/O error).
    case unreadable(path: String, reason: String)
    /// The database was migrated by a newer ftms-bridge than this one.
    case newerSchema(path: String, migration: String)
    /// The state directory cannot be created or used.
    case directory(path: String, reason: String)
    /// A stored value does not decode (a checkpoint from another layout, say).
    case badRecord(what: String, reason: String)
    /// A write failed, and why (disk full, read-only, I/O error, locked too long).
    case cannotWrite(WriteFailure)
    /// SQLite refused a read at run time.
    case database(String)

    public var description: String {
        switch self {
        case .damaged(let path, let reason):
            "state database \(path) is damaged (\(reason)); the daemon moves it aside and starts on a fresh one, "
                + "and `ftms-bridge salvage` reads its sessions back into the queue"
        case .inaccessible(let path, let reason):
            "state database \(path) cannot be opened for writing: \(reason)"
        case .unreadable(let path, let reason):
            "state database \(path) is unusable: \(reason)"
        case .newerSchema(let path, let migration):
            "state database \(path) was written by a newer ftms-bridge (migration \(migration)); refusing to start"
        case .directory(let path, let reason):
            "state directory \(path): \(reason)"
        case .badRecord(let what, let reason):
            "stored \(what) is unreadable: \(reason)"
        case .cannotWrite(let failure):
            "state database cannot be written: \(failure)"
        case .database(let reason):
            "state database: \(reason)"
        }
    }
}
