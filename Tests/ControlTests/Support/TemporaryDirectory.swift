import Glibc

/// A fresh directory under /tmp (short, for socket paths), removed with everything in it when
/// the last reference goes.
final class TemporaryDirectory: Sendable {
    let path: String

    init() throws {
        var template = Array("/tmp/ctl-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw SystemCallFailed(call: "mkdtemp", code: errno)
        }
        path = String(cString: made)
    }

    deinit {
        Self.removeTree(path)
    }

    /// The names in `directory`, `.` and `..` left out.
    static func entries(_ directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    static func status(_ path: String) -> stat? {
        var status = stat()
        return lstat(path, &status) == 0 ? status : nil
    }

    private static func removeTree(_ path: String) {
        if let status = status(path), status.st_mode & S_IFMT == S_IFDIR {
            for name in entries(path) { removeTree(path + "/" + name) }
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}

struct SystemCallFailed: Error, CustomStringConvertible {
    var call: String
    var code: Int32
    var description: String { "\(call) failed: errno \(code)" }
}
