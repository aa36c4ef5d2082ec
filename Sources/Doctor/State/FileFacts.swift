#if canImport(Glibc)
import JSON
import Glibc
#endif

/// What `lstat` says about a path, in the terms an operator checks: kind, owner, mode.
struct FileFacts: Sendable, Hashable {
    enum Kind: String, Sendable { case directory, socket, file, other }

    var kind: Kind
    var owner: String
    var group: String
    /// Permission bits only (`0o750`).
    var mode: UInt32

    /// `nil` when nothing is at `path`; the errno otherwise comes back through `error`.
    static func of(_ path: String) -> Result<FileFacts, FileFactsFailure> {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            return .failure(errno == ENOENT ? .missing : .unreadable(Errno.describe(errno)))
        }
        let kind: Kind = switch info.st_mode & S_IFMT {
        case S_IFDIR: .directory
        case S_IFSOCK: .socket
        case S_IFREG: .file
        default: .other
        }
        return .success(FileFacts(
            kind: kind, owner: ServiceAccount.userName(info.st_uid) ?? "\(info.st_uid)",
            group: ServiceAccount.groupName(info.st_gid) ?? "\(info.st_gid)", mode: UInt32(info.st_mode) & 0o7777))
    }

    /// `0750`, as `ls` and `chmod` write it.
    var modeText: String { Self.octal(mode) }

    static func octal(_ mode: UInt32) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    var data: [String: JSONValue] {
        ["kind": .string(kind.rawValue), "owner": .string(owner), "group": .string(group), "mode": .string(modeText)]
    }
}

enum FileFactsFailure: Error, Sendable, Hashable {
    case missing
    case unreadable(String)
}
