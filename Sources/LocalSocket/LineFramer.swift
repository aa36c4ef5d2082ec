package import NIOCore

/// Cuts a peer's bytes into lines of at most `limit` bytes: the framing of both local sockets
/// (a control request per line, a metrics reader's `watch` line) and of the dashboard's reading
/// of the metrics stream.
///
/// The limit is enforced as bytes arrive, so a peer streaming without newlines is stopped
/// after `limit` bytes rather than growing the buffer; and the search for a newline resumes
/// where it stopped, so a line arriving a byte at a time costs linear time, not quadratic.
package struct LineFramer {
    package enum Piece: Equatable, Sendable {
        /// A whole line, without its `\n` (or `\r\n`).
        case line([UInt8])
        /// More than `limit` bytes without a newline: the peer is not speaking the protocol.
        case tooLong
    }

    package let limit: Int
    private var buffer: ByteBuffer?
    /// Bytes of `buffer` already known to hold no newline.
    private var searched = 0

    package init(limit: Int) {
        self.limit = limit
    }

    package mutating func append(_ bytes: inout ByteBuffer) {
        if buffer == nil {
            buffer = bytes
        } else {
            buffer?.writeBuffer(&bytes)
        }
    }

    /// The next whole line, nil when none has arrived yet.
    package mutating func next() -> Piece? {
        guard var pending = buffer else { return nil }
        let view = pending.readableBytesView
        guard let newline = view.dropFirst(searched).firstIndex(of: UInt8(ascii: "\n")) else {
            searched = view.count
            return view.count > limit ? .tooLong : nil
        }
        let length = newline - view.startIndex
        guard length <= limit else { return .tooLong }
        var line = pending.readBytes(length: length) ?? []
        pending.moveReaderIndex(forwardBy: 1)
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        buffer = pending.readableBytes > 0 ? pending : nil
        searched = 0
        return .line(line)
    }

    /// What is left when the peer closes its side: an unterminated last line counts, so
    /// `printf '{"command":"status"}' | socat - UNIX:…` gets its answer.
    package mutating func finish() -> Piece? {
        guard let pending = buffer, pending.readableBytes > 0 else { return nil }
        buffer = nil
        searched = 0
        guard pending.readableBytes <= limit else { return .tooLong }
        return .line(Array(pending.readableBytesView))
    }
}
