import BlueZTesting
import Foundation

/// A fresh directory under /tmp (short: a socket path must fit 107 bytes), removed afterwards.
final class TemporaryDirectory: Sendable {
    let path: String

    init() throws {
        var template = Array("/tmp/dash-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TimedOut(what: "mkdtemp") }
        path = String(cString: made)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}
