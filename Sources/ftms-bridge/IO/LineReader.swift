#if canImport(Glibc)
import Glibc
#endif

/// Reads a file descriptor line by line through one fixed buffer.
///
/// `ftms-bridge decode` must stream a million frames in constant memory, so lines are handed
/// out as borrowed buffers, never as `String`s. A line longer than `maximumLineLength` is
/// reported as one over-long line (its excess skipped) instead of growing memory without
/// bound on garbage input.
struct LineReader {
    let descriptor: Int32
    let maximumLineLength: Int
    private var buffer: [UInt8]
    private var line: [UInt8] = []
    private var start = 0
    private var end = 0
    private var finished = false

    init(descriptor: Int32, chunkSize: Int = 1 << 16, maximumLineLength: Int = 1 << 16) {
        self.descriptor = descriptor
        self.maximumLineLength = maximumLineLength
        self.buffer = [UInt8](repeating: 0, count: chunkSize)
        line.reserveCapacity(256)
    }

    enum Event {
        case line(UnsafeBufferPointer<UInt8>)
        case tooLong(Int)
    }

    /// Calls `body` with each line (without its `\n` or `\r\n`). Returns an errno on a read error.
    mutating func forEachLine(_ body: (Event) -> Void) -> Int32? {
        var overflow = 0
        while true {
            if start == end {
                if finished { break }
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                if count == 0 {
                    finished = true
                    if !line.isEmpty || overflow > 0 { emit(&overflow, body) }
                    break
                }
                start = 0
                end = count
            }
            let newline = buffer[start..<end].firstIndex(of: UInt8(ascii: "\n"))
            // The common case, a whole line inside the read buffer, is handed out in place.
            if let newline, line.isEmpty, overflow == 0, newline - start <= maximumLineLength {
                var stop = newline
                if stop > start, buffer[stop - 1] == UInt8(ascii: "\r") { stop -= 1 }
                let lineStart = start
                start = newline + 1
                buffer.withUnsafeBufferPointer { body(.line(UnsafeBufferPointer(rebasing: $0[lineStart..<stop]))) }
                continue
            }
            let stop = newline ?? end
            let room = maximumLineLength - line.count
            if stop - start <= room {
                line.append(contentsOf: buffer[start..<stop])
            } else {
                line.append(contentsOf: buffer[start..<(start + max(0, room))])
                overflow += stop - start - max(0, room)
            }
            if let newline {
                start = newline + 1
                emit(&overflow, body)
            } else {
                start = end
            }
        }
        return nil
    }

    private mutating func emit(_ overflow: inout Int, _ body: (Event) -> Void) {
        if overflow > 0 {
            body(.tooLong(line.count + overflow))
        } else {
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            line.withUnsafeBufferPointer { body(.line($0)) }
        }
        line.removeAll(keepingCapacity: true)
        overflow = 0
    }
}
