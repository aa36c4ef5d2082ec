import Foundation

/// A fresh directory under the system's temporary directory, removed when the value goes.
final class TemporaryDirectory: @unchecked Sendable {
    let path: String

    init() throws {
        // Short: Unix socket paths inside it must stay under 108 bytes.
        path = "/tmp/doctor-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let file = file(name)
        try FileManager.default.createDirectory(
            atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
