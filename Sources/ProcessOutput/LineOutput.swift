import Glibc

/// Whole lines straight to a file descriptor, the one way every ftms-bridge process writes its
/// stdout and stderr lines (contract §9's one-line errors, `ready`/`listening` lines, log lines).
///
/// No stdio buffer, so a parent reading a pipe sees each line as soon as it is written (a test
/// waiting for `listening`, a display reading `monitor`), and a line goes out in one write(2)
/// where the kernel allows, so lines from concurrent threads never interleave mid-line. Written
/// by hand because it is a dozen lines over write(2): no package does only this.
public enum LineOutput {
    /// `line` and a newline on stdout. False when the reader has gone away.
    @discardableResult
    public static func standardOutput(_ line: String) -> Bool {
        write(line, to: STDOUT_FILENO)
    }

    /// `line` and a newline on stderr. False when the reader has gone away.
    @discardableResult
    public static func standardError(_ line: String) -> Bool {
        write(line, to: STDERR_FILENO)
    }

    /// `line` and a newline on `descriptor`. False when a write fails.
    @discardableResult
    public static func write(_ line: String, to descriptor: Int32) -> Bool {
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        return bytes.withUnsafeBytes { writeAll($0, to: descriptor) }
    }

    /// All of `raw`, retrying short writes and EINTR. False when a write fails (the reader has
    /// gone away, the disk is full).
    @discardableResult
    public static func writeAll(_ raw: UnsafeRawBufferPointer, to descriptor: Int32) -> Bool {
        guard let base = raw.baseAddress else { return true }
        var offset = 0
        while offset < raw.count {
            let written = Glibc.write(descriptor, base + offset, raw.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }
}
