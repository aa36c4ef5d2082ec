import NIOCore

/// Splits a reader's bytes into `\n`-terminated lines, at most `limit` bytes each.
///
/// The limit is checked as bytes arrive, not when a newline finally comes, so a reader that
/// streams without newlines is refused after `limit` bytes instead of growing the buffer.
struct LineFramer {
    let limit: Int
    private var pending: ByteBuffer?

    init(limit: Int) {
        self.limit = limit
    }

    mutating func append(_ bytes: inout ByteBuffer) {
        if pending == nil {
            pending = bytes
        } else {
            pending?.writeBuffer(&bytes)
        }
    }

    /// The next complete line without its `\n` (or `\r\n`), nil when none is complete yet.
    mutating func nextLine() throws(ReaderInputError) -> ByteBuffer? {
        guard var buffer = pending else { return nil }
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            guard buffer.readableBytes <= limit else { throw .lineTooLong(limit: limit) }
            return nil
        }
        let length = newline - buffer.readerIndex
        guard length <= limit else { throw .lineTooLong(limit: limit) }
        guard var line = buffer.readSlice(length: length) else { return nil }
        buffer.moveReaderIndex(forwardBy: 1)
        if line.readableBytesView.last == UInt8(ascii: "\r") { line.moveWriterIndex(to: line.writerIndex - 1) }
        pending = buffer.readableBytes > 0 ? buffer : nil
        return line
    }
}
