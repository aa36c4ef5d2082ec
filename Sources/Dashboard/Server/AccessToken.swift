import ProcessOutput
import Foundation

/// The read-only token a browser must show when the dashboard listens beyond loopback.
///
/// It comes from a file, never a command line (where `ps` shows it), and the file must be
/// private to its owner (no group or other bits: 0600 or 0400), like every secret the gateway
/// keeps. The token is never logged; ``description`` hides it.
public struct AccessToken: Sendable, Equatable, CustomStringConvertible {
    public static let minimumLength = 16
    let value: String

    public init(value: String) throws(AccessTokenError) {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.count >= Self.minimumLength else { throw .tooShort(minimum: Self.minimumLength) }
        guard trimmed.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else { throw .notPrintable }
        self.value = trimmed
    }

    /// Reads and checks `path`: a regular file, mode without group or other bits, one token.
    public init(file path: String) throws(AccessTokenError) {
        try self.init(value: try PrivateFile.read(path))
    }

    /// Compares in time independent of where the strings differ, so response timing does not
    /// reveal a prefix of the token.
    public func matches(_ candidate: some StringProtocol) -> Bool {
        let expected = Array(value.utf8)
        let given = Array(candidate.utf8)
        var difference = UInt8(expected.count == given.count ? 0 : 1)
        for index in expected.indices { difference |= expected[index] ^ (index < given.count ? given[index] : 0) }
        return difference == 0
    }

    public var description: String { "AccessToken(\(value.count) characters)" }
}

public enum AccessTokenError: Error, Equatable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case tooOpen(path: String, mode: UInt32)
    case tooShort(minimum: Int)
    case notPrintable

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "file \(path): \(reason)"
        case .tooOpen(let path, let mode):
            "\(path) has mode \(String(mode, radix: 8)); it must be readable by its owner only (chmod 600)"
        case .tooShort(let minimum): "the token file must hold a token of at least \(minimum) characters"
        case .notPrintable: "the token must be printable ASCII without spaces"
        }
    }
}

/// A secret kept in a file readable by its owner only (0600 or 0400): the dashboard's token,
/// a broker password. Refused if group or others may read it.
public enum PrivateFile {
    public static func read(_ path: String) throws(AccessTokenError) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { throw .unreadable(path: path, reason: errnoText(errno)) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .unreadable(path: path, reason: "not a regular file") }
        let mode = UInt32(info.st_mode) & 0o777
        guard mode & 0o077 == 0 else { throw .tooOpen(path: path, mode: mode) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .unreadable(path: path, reason: "cannot read it")
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
