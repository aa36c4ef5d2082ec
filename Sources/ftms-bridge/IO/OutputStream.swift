import JSON
import FTMS
import ProcessOutput

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
        LineOutput.writeAll(raw, to: descriptor)
    }
}

/// One line on stderr, the way every command reports a failure (contract §9).
func printError(_ message: String) {
    LineOutput.standardError("ftms-bridge: \(message)")
}

/// One line on stdout, written at once: a live display reading our pipe sees each frame as
/// it comes rather than a block at a time. False when the reader has gone away.
@discardableResult
func printLine(_ text: String) -> Bool {
    LineOutput.standardOutput(text)
}
