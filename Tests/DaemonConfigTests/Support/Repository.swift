import TestSupport
import DaemonConfig
import Foundation

/// Files of the repository the tests hold to the code: the example config and the docs.
enum Repository {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static func read(_ relativePath: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(relativePath), encoding: .utf8)
    }

    static func write(_ relativePath: String, _ text: String) throws {
        try text.write(to: root.appendingPathComponent(relativePath), atomically: true, encoding: .utf8)
    }
}

/// A directory of its own for a test, removed afterwards.
func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    let directory = try TemporaryDirectory(prefix: "ftms-config")
    return try body(directory.path)
}

extension ConfigError {
    /// What every error must be: one line, naming the source first.
    var isOneLine: Bool { !description.contains("\n") && !description.contains("\r") }
}
