package import NIOCore

/// Cuts a peer's bytes into lines of at most `limit` bytes: the framing of both local sockets
/// (a control request per line, a metrics reader's `watch` line), of the metrics socket's
/// client (`MetricsClient`: the dashboard, `watch`), and of every client of the two sockets.
///
/// A NIO decoder: in a channel it runs as `ByteToMessageHandler(LineFramer(limit:))`, and a
/// blocking client runs the same one through `NIOSingleStepByteToMessageProcessor`. Each line
/// comes out as a slice of the bytes read (no copy), without its `\n` (or `\r\n`).
///
/// The limit is enforced as bytes arrive, so a peer streaming without newlines is stopped
/// after `limit` bytes rather than growing the buffer (``LineTooLong`` is thrown, and a
/// `ByteToMessageHandler` takes no more input after it); the search for a newline resumes
/// where it stopped, so a line arriving a byte at a time costs linear time, not quadratic.
package struct LineFramer: NIOSingleStepByteToMessageDecoder {
    package typealias InboundOut = ByteBuffer

    package let limit: Int
    /// Readable bytes already known to hold no newline.
    private var searched = 0

    package init(limit: Int) {
        self.limit = limit
    }

    package mutating func decode(buffer: inout ByteBuffer) throws -> ByteBuffer? {
        let view = buffer.readableBytesView
        guard let newline = view.dropFirst(searched).firstIndex(of: UInt8(ascii: "\n")) else {
            searched = view.count
            if view.count > limit { throw LineTooLong(limit: limit) }
            return nil
        }
        let length = newline - view.startIndex
        guard length <= limit else { throw LineTooLong(limit: limit) }
        searched = 0
        guard var line = buffer.readSlice(length: length) else { return nil }
        buffer.moveReaderIndex(forwardBy: 1)
        if line.readableBytesView.last == UInt8(ascii: "\r") { line.moveWriterIndex(to: line.writerIndex - 1) }
        return line
    }

    /// What is left when the peer closes its side: an unterminated last line counts, so
    /// `printf '{"command":"status"}' | socat - UNIX:…` gets its answer.
    package mutating func decodeLast(buffer: inout ByteBuffer, seenEOF: Bool) throws -> ByteBuffer? {
        if let line = try decode(buffer: &buffer) { return line }
        searched = 0
        guard buffer.readableBytes > 0 else { return nil }
        return buffer.readSlice(length: buffer.readableBytes)
    }
}

/// More than a ``LineFramer``'s limit without a newline: the peer is not speaking the protocol.
package struct LineTooLong: Error, Equatable, CustomStringConvertible {
    package let limit: Int

    package init(limit: Int) {
        self.limit = limit
    }

    package var description: String { "a line longer than \(limit) bytes" }
}
