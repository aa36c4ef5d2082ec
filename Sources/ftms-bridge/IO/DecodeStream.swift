import JSON
import FTMS

#if canImport(Glibc)
import Glibc
#endif

/// Standard input through a ``HexLineDecoder`` to standard output, in large blocks.
///
/// One 1 MiB read buffer and two JSON buffers of about the same size, reused for the whole
/// stream: a read fills what the last partial line left free, the decoder consumes whole
/// lines in place into one JSON buffer while a ``BlockWriter`` writes the other. Memory is the
/// same for ten frames or a billion, and the only system calls are one `read` and one `write`
/// per megabyte.
enum DecodeStream {
    static let inputBlock = 1 << 20
    static let outputBlock = 1 << 20

    /// Decodes `input` to its end, JSON to `output`. Returns an errno when a read fails (what
    /// was read before it is decoded and written). `prefix`: bytes already read from `input`,
    /// decoded first (``ParallelDecodeStream`` hands over the rest of its input this way).
    static func run(
        _ decoder: inout HexLineDecoder, input descriptor: Int32 = 0, output: Int32 = 1, prefix: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)
    ) -> Int32? {
        precondition(inputBlock > decoder.maximumLineLength, "a partial line must leave room to read into")
        precondition(prefix.count < inputBlock, "the prefix must leave room to read into")
        let input = UnsafeMutableRawBufferPointer.allocate(byteCount: inputBlock, alignment: 64)
        defer { input.deallocate() }
        guard let base = input.baseAddress else { return nil }
        let writer = BlockWriter(descriptor: output)
        var filling = JSONBuffer(capacity: outputBlock + (1 << 16))
        var spare = JSONBuffer(capacity: outputBlock + (1 << 16))
        // The writer reads a buffer's storage after `withUnsafeBytes` returns: a JSONBuffer
        // owns a fixed allocation that only moves when it grows, and the buffer handed over
        // is not appended to again until the writer has finished with it (`submit` waits).
        func handOver() {
            guard filling.count > 0 else { return }
            filling.withUnsafeBytes { writer.submit($0) }
            swap(&filling, &spare)
            filling.removeAll()
        }
        defer {
            handOver()
            writer.finish()
        }
        var start = 0
        var end = prefix.count
        if let prefixBase = prefix.baseAddress, end > 0 { memcpy(base, prefixBase, end) }
        while true {
            start += decoder.consume(UnsafeRawBufferPointer(rebasing: input[start..<end]), into: &filling, outputLimit: outputBlock)
            if filling.count >= outputBlock {
                handOver()
                continue
            }
            // What is left is a partial line: move it to the front and read after it.
            if start > 0 {
                if end > start { memmove(base, base + start, end - start) }
                end -= start
                start = 0
            }
            let count = read(descriptor, base + end, inputBlock - end)
            if count < 0 {
                if errno == EINTR { continue }
                let failure = errno
                decoder.finish(UnsafeRawBufferPointer(rebasing: input[0..<end]), into: &filling)
                return failure
            }
            if count == 0 {
                decoder.finish(UnsafeRawBufferPointer(rebasing: input[0..<end]), into: &filling)
                return nil
            }
            end += count
        }
    }
}
