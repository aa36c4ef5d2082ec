import FTMS

#if canImport(Glibc)
import Glibc
#endif

/// Writes to a file descriptor in large chunks, so a million JSON lines cost a few hundred
/// `write` calls rather than a million.
struct BufferedOutput {
    let descriptor: Int32
    let flushThreshold: Int

    init(descriptor: Int32, flushThreshold: Int = 1 << 16) {
        self.descriptor = descriptor
        self.flushThreshold = flushThreshold
    }

    /// Writes `bytes` fully if it has reached the threshold (or when `force`), then clears it.
    /// Returns false when the reader has gone away.
    @discardableResult
    func drain(_ bytes: inout [UInt8], force: Bool = false) -> Bool {
        guard force || bytes.count >= flushThreshold, !bytes.isEmpty else { return true }
        defer { bytes.removeAll(keepingCapacity: true) }
        return writeAll(bytes)
    }

    @discardableResult
    func drain(_ json: inout JSONBuffer, force: Bool = false) -> Bool {
        guard force || json.count >= flushThreshold, json.count > 0 else { return true }
        defer { json.removeAll() }
        return json.withUnsafeBytes(writeAll)
    }

    private func writeAll(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes(writeAll)
    }

    private func writeAll(_ raw: UnsafeRawBufferPointer) -> Bool {
        Self.writeAll(raw, to: descriptor)
    }

    /// Writes all of `raw`, retrying short writes and EINTR. False when a write fails (the
    /// reader has gone away).
    static func writeAll(_ raw: UnsafeRawBufferPointer, to descriptor: Int32) -> Bool {
        guard let base = raw.baseAddress else { return true }
        var offset = 0
        while offset < raw.count {
            let written = write(descriptor, base + offset, raw.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }
}

/// One line on stderr, the way every command reports a failure (contract §9).
func printError(_ message: String) {
    var line = Array("ftms-bridge: \(message)\n".utf8)
    BufferedOutput(descriptor: 2).drain(&line, force: true)
}

/// One line on stdout, written at once: a live display reading our pipe sees each frame as
/// it comes rather than a block at a time. False when the reader has gone away.
@discardableResult
func printLine(_ text: String) -> Bool {
    var line = Array(text.utf8)
    line.append(UInt8(ascii: "\n"))
    return BufferedOutput(descriptor: 1).drain(&line, force: true)
}
