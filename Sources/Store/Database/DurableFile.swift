import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The small files the store keeps beside its database (the session journal, the device id),
/// written so that a power cut leaves each at every instant the old file or the new, whole: a
/// replacement is written to `NAME.new`, fsynced, renamed over the file, and the directory
/// fsynced so the new name itself survives. One home for that sequence, so no writer forgets a
/// step of it.
enum DurableFile {
    /// Replaces `path` with `bytes` (mode 0600); nil when done, else why not, one line.
    static func replace(_ path: String, with bytes: [UInt8]) -> String? {
        let partial = path + ".new"
        let descriptor = open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return FileAccess.errnoLine(errno) }
        let written = writeAll(descriptor, bytes) && fsync(descriptor) == 0
        let code = errno
        close(descriptor)
        guard written, rename(partial, path) == 0 else {
            let reason = FileAccess.errnoLine(written ? errno : code)
            unlink(partial)
            return reason
        }
        return syncDirectory(of: path)
    }

    /// Syncs the directory holding `path`, so a file created or renamed there keeps its name
    /// after a power cut; nil when done, else why not.
    static func syncDirectory(of path: String) -> String? {
        let directory = (path as NSString).deletingLastPathComponent
        let descriptor = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return FileAccess.errnoLine(errno) }
        defer { close(descriptor) }
        return fsync(descriptor) == 0 ? nil : FileAccess.errnoLine(errno)
    }

    /// Writes all of `bytes` at the descriptor's offset, through short writes and EINTR.
    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress.map { $0 + offset }, $0.count - offset) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            offset += count
        }
        return true
    }
}
