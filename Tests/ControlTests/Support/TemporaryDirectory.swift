import Foundation
import Glibc

/// A fresh directory under /tmp (short, for socket paths), removed with everything in it when
/// the last reference goes.
final class TemporaryDirectory: Sendable {
    let path: String

    init() throws {
        var template = Array("/tmp/ctl-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ $0.baseAddress.flatMap(mkdtemp) }) else {
            throw SystemCallFailed(call: "mkdtemp", code: errno)
        }
        path = String(cString: made)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The names in `directory`, sorted.
    static func entries(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    static func status(_ path: String) -> stat? {
        var status = stat()
        return lstat(path, &status) == 0 ? status : nil
    }
}

struct SystemCallFailed: Error, CustomStringConvertible {
    var call: String
    var code: Int32
    var description: String { "\(call) failed: errno \(code)" }
}
