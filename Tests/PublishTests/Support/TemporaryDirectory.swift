import Glibc

/// A fresh directory under /tmp (short, because a socket path must fit 107 bytes), removed
/// with everything in it when the test is done.
struct TemporaryDirectory: ~Copyable {
    let path: String

    init() throws {
        var template = Array("/tmp/publish-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw SystemCallFailed(call: "mkdtemp", code: errno) }
        path = String(cString: made)
    }

    deinit {
        Self.remove(path)
    }

    private static func remove(_ path: String) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        if status.st_mode & S_IFMT == S_IFDIR, let directory = opendir(path) {
            var names: [String] = []
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name != "." && name != ".." { names.append(name) }
            }
            closedir(directory)
            for name in names { remove(path + "/" + name) }
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
