import Glibc
import ProcessOutput

/// Reads a config file's bytes with plain POSIX calls, so each failure has its own errno
/// message and nothing can block: a FIFO or a device is refused before it is read, and no more
/// than ``ConfigText/maximumBytes`` + 1 bytes are ever read.
enum ConfigFile {
    enum Outcome {
        case bytes([UInt8])
        case missing
    }

    static func read(_ path: String) throws(ConfigError) -> Outcome {
        guard !path.isEmpty else { throw ConfigError(.unreadable, source: "config", problem: "the config path is empty") }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT { return .missing }
            throw failure("cannot be opened", code, path)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure("cannot be examined", errno, path) }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw ConfigError(.unreadable, source: path, problem: "is a directory, not a config file")
        default: throw ConfigError(.unreadable, source: path, problem: "is not a regular file")
        }
        let limit = ConfigText.maximumBytes + 1
        var bytes = [UInt8](repeating: 0, count: min(limit, max(Int(info.st_size), 0) + 1))
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { buffer in
                Glibc.read(fd, buffer.baseAddress.map { $0 + count }, buffer.count - count)
            }
            if got < 0 {
                if errno == EINTR { continue }
                throw failure("cannot be read", errno, path)
            }
            if got == 0 { break }
            count += got
            // The file grew while being read: keep reading, up to the limit.
            if count == bytes.count, bytes.count < limit { bytes.append(contentsOf: repeatElement(0, count: min(4096, limit - bytes.count))) }
        }
        return .bytes(Array(bytes[..<count]))
    }

    private static func failure(_ what: String, _ code: Int32, _ path: String) -> ConfigError {
        ConfigError(.unreadable, source: path, problem: "\(what): \(errnoText(code))")
    }
}
