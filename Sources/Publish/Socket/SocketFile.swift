#if canImport(Glibc)
import Glibc
#endif

/// The socket's path on disk: made ready before binding, given its permissions after, and
/// removed at close only if it is still the file this daemon bound.
struct SocketFile: Sendable {
    /// sun_path's size on Linux, less the terminating NUL.
    static let maximumPathLength = 107
    static let mode: mode_t = 0o660

    let path: String
    private var identity: (device: dev_t, inode: ino_t)?

    init(path: String) {
        self.path = path
    }

    /// Makes the parent directory if it is missing, and clears a stale socket file: one that
    /// is left from a daemon that died (systemd does not remove it either), which nobody is
    /// listening on. A socket someone answers on, or a file that is not a socket, is refused.
    func prepare() throws(SocketError) {
        guard path.utf8.count <= Self.maximumPathLength else {
            throw .pathTooLong(path: path, limit: Self.maximumPathLength)
        }
        try Self.makeDirectories(Self.parent(of: path))
        var status = stat()
        guard lstat(path, &status) == 0 else {
            guard errno == ENOENT else { throw .system(operation: "inspect", path: path, errno: errno) }
            return
        }
        guard status.st_mode & S_IFMT == S_IFSOCK else { throw .notASocket(path: path) }
        switch SocketProbe.connect(path) {
        case .listening: throw .alreadyListening(path: path)
        case .stale, .gone: break
        case .failed(let code): throw .system(operation: "probe", path: path, errno: code)
        }
        guard unlink(path) == 0 || errno == ENOENT else { throw .system(operation: "remove stale", path: path, errno: errno) }
    }

    /// Sets the group (when one is given) then the mode, after bind. Group first, so the
    /// moment group members can connect is the moment the group is the right one.
    mutating func applyPermissions(group: gid_t?) throws(SocketError) {
        if let group, chown(path, uid_t.max, group) != 0 {
            throw .system(operation: "set the group of", path: path, errno: errno)
        }
        guard chmod(path, Self.mode) == 0 else { throw .system(operation: "chmod", path: path, errno: errno) }
        var status = stat()
        guard stat(path, &status) == 0 else { throw .system(operation: "inspect", path: path, errno: errno) }
        identity = (status.st_dev, status.st_ino)
    }

    /// Removes the file if it is still ours: a second daemon started by mistake may have
    /// replaced it after ours went stale, and its socket is not ours to delete.
    func remove() {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        if let identity, identity.device != status.st_dev || identity.inode != status.st_ino { return }
        unlink(path)
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        let parent = String(path[..<slash])
        return parent.isEmpty ? "/" : parent
    }

    /// `mkdir -p`, 0755: readers need to traverse it; the socket's own mode guards access.
    private static func makeDirectories(_ directory: String) throws(SocketError) {
        var status = stat()
        if stat(directory, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFDIR else { throw .system(operation: "use directory", path: directory, errno: ENOTDIR) }
            return
        }
        guard errno == ENOENT else { throw .system(operation: "inspect", path: directory, errno: errno) }
        let parent = parent(of: directory)
        if parent != directory { try makeDirectories(parent) }
        guard mkdir(directory, 0o755) == 0 || errno == EEXIST else { throw .system(operation: "create directory", path: directory, errno: errno) }
    }
}
