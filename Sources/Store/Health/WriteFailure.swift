import GRDB

/// Why the store could not write, in the terms an operator acts on: the disk is full, the file
/// system is read-only, no access, the card answers with I/O errors, the file is damaged.
///
/// Classified from SQLite's primary result code rather than its message, which names the
/// symptom ("database or disk is full") but not always the cause.
public struct WriteFailure: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Cause: String, Sendable, Hashable {
        /// SQLITE_FULL: ENOSPC, or the page limit.
        case full = "disk_full"
        /// SQLITE_READONLY: a read-only file system or database.
        case readOnly = "read_only"
        /// SQLITE_PERM, SQLITE_AUTH, SQLITE_CANTOPEN: the process may not open or write a file.
        case noAccess = "no_access"
        /// SQLITE_IOERR: the storage failed a read, write or sync.
        case ioError = "io_error"
        /// SQLITE_CORRUPT, SQLITE_NOTADB: a page is damaged.
        case damaged
        /// SQLITE_BUSY, SQLITE_LOCKED: another process held the lock past the busy timeout.
        case busy
        case other

        /// What an operator reads first.
        public var text: String {
            switch self {
            case .full: "the file system is full"
            case .readOnly: "the database or its file system is read-only"
            case .noAccess: "no access to the database's files"
            case .ioError: "an I/O error (the storage may be failing)"
            case .damaged: "the database is damaged"
            case .busy: "another process holds the database's lock"
            case .other: "SQLite refused the write"
            }
        }
    }

    public var cause: Cause
    /// SQLite's own words, one line.
    public var detail: String

    public init(cause: Cause, detail: String) {
        self.cause = cause
        self.detail = detail
    }

    init(_ error: DatabaseError) {
        switch error.resultCode {
        case .SQLITE_FULL: cause = .full
        case .SQLITE_READONLY: cause = .readOnly
        case .SQLITE_PERM, .SQLITE_AUTH, .SQLITE_CANTOPEN: cause = .noAccess
        case .SQLITE_IOERR: cause = .ioError
        case .SQLITE_CORRUPT, .SQLITE_NOTADB: cause = .damaged
        case .SQLITE_BUSY, .SQLITE_LOCKED: cause = .busy
        default: cause = .other
        }
        detail = GatewayStore.oneLine(error)
    }

    public var description: String { "\(cause.text) (\(detail))" }
}
