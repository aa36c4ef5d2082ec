import Foundation
import ProcessOutput

#if canImport(Glibc)
import Glibc
#endif

/// Why this process cannot write a state database, in the file system's terms: a read-only
/// mount, a file or directory it has no write permission on, a full disk. Read off the file
/// system itself (statvfs, access, stat) when SQLite's own error ("attempt to write a readonly
/// database", "unable to open database file") names only the symptom.
enum FileAccess {
    /// The first problem found with writing `path` (the database) and the files SQLite makes
    /// beside it, or nil when the file system shows none.
    static func writeProblem(path: String) -> String? {
        let directory = (path as NSString).deletingLastPathComponent
        if FileSystemSpace.isReadOnly(directory.isEmpty ? "." : directory) {
            return "the file system holding \(directory) is mounted read-only (EROFS); the database is not damaged: remount it read-write"
        }
        let files = [(directory, "directory"), (path, "file"), (path + "-wal", "file"), (path + "-shm", "file")]
        for (file, kind) in files where FileManager.default.fileExists(atPath: file) {
            guard access(file, W_OK) != 0 else { continue }
            let code = errno
            var owner = ""
            var status = stat()
            if stat(file, &status) == 0 {
                owner = ", owned by uid \(status.st_uid) gid \(status.st_gid) with mode \(String(status.st_mode & 0o7777, radix: 8))"
            }
            return "the \(kind) \(file) is not writable by this process (\(name(code)): uid \(geteuid()) gid \(getegid())\(owner)); "
                + "the database is not damaged: give the service user write access"
        }
        if let free = FileSystemSpace.available(at: directory.isEmpty ? "." : directory), free < 65_536 {
            return "the file system holding \(directory) is full (ENOSPC, \(free) bytes free)"
        }
        return nil
    }

    /// `Read-only file system (EROFS)`.
    static func errnoLine(_ code: Int32) -> String {
        "\(errnoText(code)) (\(name(code)))"
    }

    /// The errno names an operator meets here.
    static func name(_ code: Int32) -> String {
        switch code {
        case EROFS: "EROFS"
        case EACCES: "EACCES"
        case EPERM: "EPERM"
        case ENOSPC: "ENOSPC"
        case EDQUOT: "EDQUOT"
        case EIO: "EIO"
        case ENOENT: "ENOENT"
        case ENOTDIR: "ENOTDIR"
        default: "errno \(code)"
        }
    }
}

extension GatewayStore {
    /// Why this process could not write the state database in `directory`, in the file
    /// system's terms, or nil: what a command that opens it read-only (`status`) still tells
    /// the operator.
    public static func writeProblem(in directory: String) -> String? {
        FileAccess.writeProblem(path: (directory as NSString).appendingPathComponent(fileName))
    }
}
