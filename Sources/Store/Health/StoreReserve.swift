import ProcessOutput

#if canImport(Glibc)
import Glibc
#endif

/// Room kept for finished sessions when the state directory's file system fills up: a ballast
/// file in the state directory, given back (unlinked) the first time a write that keeps a
/// session fails with SQLITE_FULL, so that its retry fits, and made again once the file system
/// has room for it and as much again.
///
/// Why a ballast file rather than SQLite's own means: SQLite reserves no space. Free pages
/// inside the database (its freelist) are reused only by writes that happen to land in them,
/// and in WAL mode every write first appends frames to the WAL file, which must grow on disk;
/// `SQLITE_FCNTL_CHUNK_SIZE` and `SQLITE_FCNTL_SIZE_HINT` preallocate the database file, not
/// the WAL, and a checkpoint that cannot extend the database leaves the WAL growing. A ballast
/// file is given back whole by one unlink whatever the write needs, works on every file system
/// the box may use (ext4 on the SD card, a tmpfs), and is plain to see (`ls -l` in the state
/// directory). It is allocated with posix_fallocate, so its blocks are really taken: a sparse
/// file would give nothing back.
///
/// Only writes that keep a session (queueing it, marking it uploaded, the tokens) may use the
/// room it gives back: while it is released the store refuses checkpoints and plot points
/// before trying them, so the gym's periodic writes cannot eat the room that a finished
/// session needs (see ``GatewayStore/write(_:_:)``).
public struct StoreReserve: Sendable {
    public static let fileName = "ftms-bridge.reserve"
    /// 2 MiB. One queue transaction appends a few pages of WAL frames (a 1–2 KB summary, its
    /// last plot chunk, the checkpoint row it deletes: under 64 KB with 4 KiB pages), so this
    /// holds dozens of finished sessions, the uploads that mark them, and a token refresh,
    /// while costing a gateway's SD card nothing it would miss.
    public static let defaultBytes: Int64 = 2 << 20

    public let path: String
    public let bytes: Int64
    /// Free bytes on the file system holding a path (``FileSystemSpace/available(at:)``); a test
    /// says the disk is full without filling one.
    let freeSpace: @Sendable (String) -> Int64?

    public init(
        directory: String, bytes: Int64 = StoreReserve.defaultBytes,
        freeSpace: @escaping @Sendable (String) -> Int64? = { FileSystemSpace.available(at: $0) }
    ) {
        path = directory.hasSuffix("/") ? directory + Self.fileName : directory + "/" + Self.fileName
        self.bytes = bytes
        self.freeSpace = freeSpace
    }

    /// Whether the ballast is in place, whole.
    public var isHeld: Bool {
        var status = stat()
        return stat(path, &status) == 0 && Int64(status.st_size) >= bytes
    }

    /// Makes the ballast unless it is in place; only when the file system has room for it and
    /// as much again, so that making it does not fill the disk it is meant to relieve. Returns
    /// whether it is held afterwards.
    @discardableResult
    public func make() -> Bool {
        if isHeld { return true }
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        guard let free = freeSpace(directory.isEmpty ? "/" : directory), free >= 2 * bytes else { return false }
        let partial = path + ".new"
        let descriptor = open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return false }
        var made = posix_fallocate(descriptor, 0, off_t(bytes)) == 0
        if !made, ftruncate(descriptor, 0) == 0 {
            // A file system without fallocate: zeros, written, take blocks just the same.
            made = Self.writeZeros(descriptor, bytes)
        }
        made = made && fsync(descriptor) == 0
        close(descriptor)
        guard made, rename(partial, path) == 0 else {
            unlink(partial)
            return false
        }
        return true
    }

    /// Gives the room back. Returns whether there was a ballast to remove.
    @discardableResult
    public func release() -> Bool {
        unlink(path + ".new")
        return unlink(path) == 0
    }

    private static func writeZeros(_ descriptor: Int32, _ bytes: Int64) -> Bool {
        let chunk = [UInt8](repeating: 0, count: 65_536)
        var left = bytes
        while left > 0 {
            let count = chunk.withUnsafeBytes { write(descriptor, $0.baseAddress, Int(min(left, Int64($0.count)))) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            left -= Int64(count)
        }
        return true
    }
}
