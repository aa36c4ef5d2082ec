public import Foundation
import Glibc

/// A fresh directory under /tmp, removed with everything in it when the last reference goes.
/// Under /tmp and short because the tests put Unix sockets in it, whose paths must fit 107
/// bytes (97 for the daemon's sockets, which are bound in a private directory beside them).
public final class TemporaryDirectory: Sendable {
    public let path: String

    public init(prefix: String = "ftms") throws {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ $0.baseAddress.flatMap(mkdtemp) }) else {
            throw SystemCallFailed(call: "mkdtemp", code: errno)
        }
        path = String(cString: made)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// A path inside the directory, for a scratch file that goes with it: nothing is left in
    /// /tmp even when the test fails before its own cleanup would have run.
    public func file(_ name: String) -> String {
        path + "/" + name
    }

    /// The directory as a URL, for the Foundation calls that take one.
    public var url: URL {
        URL(fileURLWithPath: path, isDirectory: true)
    }

    /// The names in `directory`, sorted.
    public static func entries(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    /// lstat(2) of `path`, or nil.
    public static func status(_ path: String) -> stat? {
        var status = stat()
        return lstat(path, &status) == 0 ? status : nil
    }
}

/// A system call a test needed failed.
public struct SystemCallFailed: Error, CustomStringConvertible {
    public var call: String
    public var code: Int32

    public init(call: String, code: Int32) {
        self.call = call
        self.code = code
    }

    public var description: String { "\(call) failed: errno \(code)" }
}
