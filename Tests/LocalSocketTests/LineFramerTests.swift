import DeterministicRandom
import LocalSocket
import NIOCore
import Testing

/// The framing both sockets and the dashboard read with: however a stream is cut into reads,
/// the same lines come out, and a line past the limit is refused whether or not its newline
/// has arrived.
@Suite("Line framing")
struct LineFramerTests {
    /// Feeds `stream` in pieces cut at `cuts` and collects what the framer yields, then what
    /// `finish()` gives at the end of input.
    static func frame(_ stream: [UInt8], limit: Int, cuts: [Int]) -> [LineFramer.Piece] {
        var framer = LineFramer(limit: limit)
        var pieces: [LineFramer.Piece] = []
        var start = 0
        for end in cuts.sorted() + [stream.count] where end >= start {
            var chunk = ByteBuffer(bytes: stream[start..<end])
            framer.append(&chunk)
            while let piece = framer.next() {
                pieces.append(piece)
                if piece == .tooLong { return pieces }
            }
            start = end
        }
        if let last = framer.finish() { pieces.append(last) }
        return pieces
    }

    @Test func anyCuttingGivesTheSameLines() {
        var random = SplitMix64(seed: 0x11E5)
        for _ in 0..<500 {
            let lines = (0..<Int(random.next() % 6)).map { _ in
                (0..<Int(random.next() % 40)).map { _ in UInt8(ascii: "a") + UInt8(random.next() % 26) }
            }
            var stream: [UInt8] = []
            for line in lines { stream += line + (random.next() % 3 == 0 ? [0x0D, 0x0A] : [0x0A]) }
            let cuts = (0..<Int(random.next() % 8)).map { _ in Int(random.next() % UInt64(stream.count + 1)) }
            #expect(Self.frame(stream, limit: 64, cuts: cuts) == lines.map(LineFramer.Piece.line))
        }
    }

    @Test func aByteAtATimeIsTheSameAsAllAtOnce() {
        let stream = Array("{\"watch\":{}}\r\n\n{\"command\":\"status\"}\nlast".utf8)
        let whole = Self.frame(stream, limit: 64, cuts: [])
        #expect(whole == [.line(Array("{\"watch\":{}}".utf8)), .line([]), .line(Array("{\"command\":\"status\"}".utf8)), .line(Array("last".utf8))])
        #expect(Self.frame(stream, limit: 64, cuts: Array(stream.indices)) == whole)
    }

    @Test func aLineOverTheLimitIsRefusedBeforeItsNewline() {
        var framer = LineFramer(limit: 8)
        var chunk = ByteBuffer(bytes: Array("12345678".utf8))
        framer.append(&chunk)
        #expect(framer.next() == nil)
        var more = ByteBuffer(bytes: [UInt8(ascii: "9")])
        framer.append(&more)
        #expect(framer.next() == .tooLong)
        #expect(Self.frame(Array("12345678\n".utf8), limit: 8, cuts: []) == [.line(Array("12345678".utf8))])
        #expect(Self.frame(Array("123456789\n".utf8), limit: 8, cuts: []) == [.tooLong])
        #expect(Self.frame(Array("123456789".utf8), limit: 8, cuts: [3]) == [.tooLong])
    }
}
