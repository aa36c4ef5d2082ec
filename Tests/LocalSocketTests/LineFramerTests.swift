import DeterministicRandom
import LocalSocket
import NIOCore
import NIOEmbedded
import NIOTestUtils
import Testing

/// The framing both sockets, the dashboard and every client read with: however a stream is cut
/// into reads, the same lines come out, and a line past the limit is refused whether or not its
/// newline has arrived.
@Suite("Line framing")
struct LineFramerTests {
    /// NIO's own check of a decoder: fed whole, byte by byte (each byte in a buffer of its own,
    /// with bytes before and after it that are not its to read) and many messages at once, it
    /// gives the same lines and leaves nothing behind.
    @Test func nioVerifiesTheDecoder() throws {
        let pairs: [(String, [ByteBuffer])] = [
            ("{\"watch\":{}}\n", [ByteBuffer(string: "{\"watch\":{}}")]),
            ("{\"command\":\"status\"}\r\n", [ByteBuffer(string: "{\"command\":\"status\"}")]),
            ("\n", [ByteBuffer()]),
            ("a\nb\r\n\n", [ByteBuffer(string: "a"), ByteBuffer(string: "b"), ByteBuffer()]),
            (String(repeating: "x", count: 64) + "\n", [ByteBuffer(string: String(repeating: "x", count: 64))]),
        ]
        try ByteToMessageDecoderVerifier.verifyDecoder(stringInputOutputPairs: pairs) { LineFramer(limit: 64) }
    }

    /// Feeds `stream` in pieces cut at `cuts` through the decoder outside a channel, as the
    /// clients do, and collects what it yields, then what the end of input gives; a line too
    /// long ends it.
    static func frame(_ stream: [UInt8], limit: Int, cuts: [Int]) -> (lines: [String], tooLong: Bool) {
        let processor = NIOSingleStepByteToMessageProcessor(LineFramer(limit: limit))
        var lines: [String] = []
        var start = 0
        do {
            for end in cuts.sorted() + [stream.count] where end >= start {
                try processor.process(buffer: ByteBuffer(bytes: stream[start..<end])) { lines.append(String(buffer: $0)) }
                start = end
            }
            try processor.finishProcessing(seenEOF: true) { lines.append(String(buffer: $0)) }
        } catch {
            #expect(error as? LineTooLong == LineTooLong(limit: limit))
            return (lines, true)
        }
        return (lines, false)
    }

    @Test func anyCuttingGivesTheSameLines() {
        var random = SplitMix64(seed: 0x11E5)
        for _ in 0..<500 {
            let lines = (0..<Int(random.next() % 6)).map { _ in
                String(decoding: (0..<Int(random.next() % 40)).map { _ in UInt8(ascii: "a") + UInt8(random.next() % 26) }, as: UTF8.self)
            }
            var stream: [UInt8] = []
            for line in lines { stream += Array(line.utf8) + (random.next() % 3 == 0 ? [0x0D, 0x0A] : [0x0A]) }
            let cuts = (0..<Int(random.next() % 8)).map { _ in Int(random.next() % UInt64(stream.count + 1)) }
            let framed = Self.frame(stream, limit: 64, cuts: cuts)
            #expect(framed.lines == lines && !framed.tooLong)
        }
    }

    /// An unterminated last line counts at the end of input (a client that shuts down its
    /// sending side after its last request).
    @Test func aByteAtATimeIsTheSameAsAllAtOnce() {
        let stream = Array("{\"watch\":{}}\r\n\n{\"command\":\"status\"}\nlast".utf8)
        let whole = Self.frame(stream, limit: 64, cuts: [])
        #expect(whole.lines == ["{\"watch\":{}}", "", "{\"command\":\"status\"}", "last"] && !whole.tooLong)
        let dripped = Self.frame(stream, limit: 64, cuts: Array(stream.indices))
        #expect(dripped.lines == whole.lines && !dripped.tooLong)
    }

    @Test func aLineOverTheLimitIsRefusedBeforeItsNewline() throws {
        var framer = LineFramer(limit: 8)
        var buffer = ByteBuffer(string: "12345678")
        #expect(try framer.decode(buffer: &buffer) == nil)
        buffer.writeString("9")
        #expect(throws: LineTooLong(limit: 8)) { try framer.decode(buffer: &buffer) }
        #expect(Self.frame(Array("12345678\n".utf8), limit: 8, cuts: []).lines == ["12345678"])
        #expect(Self.frame(Array("123456789\n".utf8), limit: 8, cuts: []) == ([], true))
        #expect(Self.frame(Array("123456789".utf8), limit: 8, cuts: [3]) == ([], true))
        #expect(Self.frame(Array("ok\n123456789".utf8), limit: 8, cuts: [3]) == (["ok"], true))
    }

    /// In a channel: the lines before a line too long are delivered, then the error, and the
    /// handler takes nothing more from the peer.
    @Test func inAChannelTheLinesBeforeALineTooLongStillCome() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(LineFramer(limit: 8)))
        #expect(throws: LineTooLong(limit: 8)) { try channel.writeInbound(ByteBuffer(string: "one\ntwo\n123456789")) }
        #expect(try channel.readInbound(as: ByteBuffer.self) == ByteBuffer(string: "one"))
        #expect(try channel.readInbound(as: ByteBuffer.self) == ByteBuffer(string: "two"))
        #expect(try channel.readInbound(as: ByteBuffer.self) == nil)
        #expect(throws: (any Error).self) { try channel.writeInbound(ByteBuffer(string: "three\n")) }
        #expect(try channel.readInbound(as: ByteBuffer.self) == nil)
        _ = try? channel.finish()
    }
}
