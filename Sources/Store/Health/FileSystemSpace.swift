#if canImport(Glibc)
import Glibc
#endif

/// The free space of a file system, as an unprivileged writer sees it.
public enum FileSystemSpace {
    /// Bytes available to a process without root's reserve (`f_bavail`) on the file system
    /// holding `path`; nil when it cannot be read.
    public static func available(at path: String) -> Int64? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// Whether the file system holding `path` is mounted read-only.
    public static func isReadOnly(_ path: String) -> Bool {
        var info = statvfs()
        return statvfs(path, &info) == 0 && info.f_flag & UInt(ST_RDONLY) != 0
    }
}
