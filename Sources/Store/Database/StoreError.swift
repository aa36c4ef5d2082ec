/// Why the store could not do what was asked, as one line an operator can act on.
///
/// The daemon refuses to start on ``unreadable`` and ``newerSchema`` rather than starting
/// empty: an empty queue would silently forget every session not yet uploaded.
public enum StoreError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The file exists but is not a usable SQLite database (corrupt, not a database, no access).
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
        case .unreadable(let path, let reason):
            "state database \(path) is unreadable (\(reason)); refusing to start: restore it or move it aside to start empty"
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
