#if canImport(Glibc)
import ProcessOutput
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one place this module touches the file system: a capture file's bytes, whole.
///
/// Captures are megabytes at most (an hour of 4 Hz notifications is about 3 MB of
/// `.ftmscap`), so reading the file into memory once and letting the readers walk it is both
/// the simplest and the fastest shape; the readers never copy it.
public enum CaptureFile {
    public struct LoadError: Error, Sendable, Equatable, CustomStringConvertible {
        public let path: String
        public let reason: String

        public var description: String { "\(path): \(reason)" }
    }

    public static func load(path: String) throws(LoadError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw LoadError(path: path, reason: lastError()) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw LoadError(path: path, reason: lastError()) }
        guard status.st_mode & S_IFMT != S_IFDIR else { throw LoadError(path: path, reason: "is a directory") }
        var bytes = [UInt8]()
        bytes.reserveCapacity(max(Int(status.st_size), 0))
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw LoadError(path: path, reason: lastError())
            }
            bytes.append(contentsOf: chunk.prefix(count))
        }
        return bytes
    }

    private static func lastError() -> String {
        errnoText(errno)
    }
}
