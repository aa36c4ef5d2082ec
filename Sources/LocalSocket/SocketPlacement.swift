#if canImport(Glibc)
import Glibc
#endif

/// Puts a socket's file at its path without it ever being reachable with a wider mode (or
/// another group) than the configured one, not even for an instant: the control socket's
/// (owner only) and the metrics socket's (its readers' group).
///
/// bind(2) creates the file with the process's umask, and a chmod(2) after it leaves a window
/// in which another user could connect (and a connection, once made, outlives any later
/// chmod). Changing the umask is no cure: it is process-wide, and the daemon has other threads
/// creating files. So the socket is bound inside a private directory made by mkdtemp(3)
/// (mode 0700, so nobody else can reach anything in it), given its mode there, and then
/// moved onto the final path with rename(2), which is atomic: at the final path there is
/// either the old file, nothing, or our socket with its final mode. The staging directory sits
/// beside the final path so the rename never crosses filesystems, and is removed at once.
///
/// rename(2) also replaces a stale socket (one a crashed daemon left, that nobody answers on)
/// in the same step; a live one is refused, checked both before binding and just before the
/// rename.
package struct SocketPlacement: Sendable {
    /// What the staging path adds to the final one: `/.NAME.XXXXXX/s` against `/NAME`.
    static let stagingOverhead = 10
    /// The longest socket path (``UnixSocketAddress/maximumPathLength``), less what staging adds.
    package static let maximumPathLength = UnixSocketAddress.maximumPathLength - stagingOverhead

    package let path: String
    private let directory: String
    private let name: String

    package init(path: String) throws(LocalSocketError) {
        guard path.utf8.count <= Self.maximumPathLength else { throw .pathTooLong(path: path, limit: Self.maximumPathLength) }
        let slash = path.lastIndex(of: "/")
        let name = String(slash.map { path[path.index(after: $0)...] } ?? path[...])
        guard !name.isEmpty, name != ".", name != ".." else { throw .badConfiguration("the socket path \(path) names no file") }
        self.path = path
        self.name = name
        let parent = slash.map { String(path[..<$0]) } ?? "."
        directory = parent.isEmpty ? "/" : parent
    }

    /// Makes the directory (`mkdir -p`, 0755: the metrics socket's readers share it) and checks
    /// that whatever is at the path may be replaced.
    package func prepare() throws(LocalSocketError) {
        try Self.makeDirectories(directory)
        try checkOccupant()
    }

    /// A private directory beside the path, and the path to bind in it.
    package func makeStagingDirectory() throws(LocalSocketError) -> StagedSocket {
        var template = Array("\(directory == "/" ? "" : directory)/.\(name).XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ $0.baseAddress.flatMap { mkdtemp($0) } }) else {
            throw .system(operation: "create a private directory in", path: directory, errno: errno)
        }
        return StagedSocket(directory: String(cString: made))
    }

    /// Gives the bound staged socket its group (when one is given) and mode, then renames it
    /// onto the path; returns the file's identity, so that ``remove(identity:)`` only ever
    /// removes this socket.
    package func publish(_ staged: StagedSocket, mode: UInt32, group: UInt32? = nil) throws(LocalSocketError) -> FileIdentity {
        if let group, chown(staged.socketPath, uid_t.max, gid_t(group)) != 0 {
            throw .system(operation: "set the group of", path: staged.socketPath, errno: errno)
        }
        guard chmod(staged.socketPath, mode_t(mode)) == 0 else {
            throw .system(operation: "set the mode of", path: staged.socketPath, errno: errno)
        }
        try checkOccupant()
        guard rename(staged.socketPath, path) == 0 else { throw .system(operation: "move the socket onto", path: path, errno: errno) }
        staged.discard()
        guard let identity = FileIdentity(path: path) else { throw .system(operation: "inspect", path: path, errno: errno) }
        return identity
    }

    /// Removes the socket file if it is still the one this server placed: a second daemon
    /// started by mistake may have replaced it after this one went stale.
    package func remove(identity: FileIdentity) {
        guard FileIdentity(path: path) == identity else { return }
        unlink(path)
    }

    /// Nothing, or a socket nobody answers on, may be replaced; a live socket or any other
    /// kind of file may not.
    private func checkOccupant() throws(LocalSocketError) {
        var status = stat()
        guard lstat(path, &status) == 0 else {
            guard errno == ENOENT else { throw .system(operation: "inspect", path: path, errno: errno) }
            return
        }
        guard status.st_mode & S_IFMT == S_IFSOCK else { throw .notASocket(path: path) }
        switch SocketProbe.connect(path) {
        case .listening: throw .alreadyListening(path: path)
        case .stale, .gone: return
        case .failed(let code): throw .system(operation: "probe", path: path, errno: code)
        }
    }

    private static func makeDirectories(_ directory: String) throws(LocalSocketError) {
        var status = stat()
        if stat(directory, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFDIR else { throw .system(operation: "use directory", path: directory, errno: ENOTDIR) }
            return
        }
        guard errno == ENOENT else { throw .system(operation: "inspect", path: directory, errno: errno) }
        if let slash = directory.lastIndex(of: "/"), slash != directory.startIndex {
            try makeDirectories(String(directory[..<slash]))
        }
        guard mkdir(directory, 0o755) == 0 || errno == EEXIST else {
            throw .system(operation: "create directory", path: directory, errno: errno)
        }
    }
}

/// The private directory a socket is bound in before it is moved into place.
package struct StagedSocket: Sendable {
    let directory: String
    package var socketPath: String { directory + "/s" }

    /// Removes the staged socket (if still there) and the directory.
    package func discard() {
        unlink(socketPath)
        rmdir(directory)
    }
}

/// A file's device and inode: which file a path named when it was looked at.
package struct FileIdentity: Equatable, Sendable {
    let device: UInt64
    let inode: UInt64

    package init?(path: String) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }
}
