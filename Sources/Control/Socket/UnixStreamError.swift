/// What went wrong on a ``UnixStream``, before the caller says what it means for it.
enum UnixStreamError: Error, Equatable {
    /// ENOENT, ENOTDIR, ECONNREFUSED: no file, or a file nobody accepts on.
    case nothingListening
    case permissionDenied
    case timedOut
    case pathTooLong
    /// The peer closed before a whole line came; `partial` bytes of one had arrived.
    case closed(partial: Int)
    case lineTooLong(limit: Int)
    case system(operation: String, errno: Int32)
}
