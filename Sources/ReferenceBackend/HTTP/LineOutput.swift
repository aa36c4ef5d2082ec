import Glibc

/// Whole lines straight to a file descriptor: no stdio buffer, so a parent reading the
/// backend's stdout sees the `listening` line at once, and concurrent request lines never
/// interleave mid-line.
public enum LineOutput {
    public static func standardOutput(_ line: String) {
        write(line, to: STDOUT_FILENO)
    }

    public static func standardError(_ line: String) {
        write(line, to: STDERR_FILENO)
    }

    static func write(_ line: String, to descriptor: Int32) {
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }
}
