import NIOCore
import Synchronization

/// What many readers received, gathered without keeping their lines: per reader, how many
/// published lines arrived and how many broke the `+1` order; per `seq`, when the last reader
/// got it.
final class DeliveryLog: Sendable {
    struct Reader {
        var received = 0
        var outOfOrder = 0
        var sawHello = false
        var closed = false
    }

    private struct State {
        var readers: [Reader]
        var lastArrival: [ContinuousClock.Instant?]
    }

    private let state: Mutex<State>

    init(readers: Int, messages: Int) {
        state = Mutex(State(readers: Array(repeating: Reader(), count: readers), lastArrival: Array(repeating: nil, count: messages + 1)))
    }

    func hello(reader: Int) {
        state.withLock { $0.readers[reader].sawHello = true }
    }

    /// One read's worth of lines at once: one lock per read, not per line.
    func arrived(reader: Int, seqs: [UInt64], outOfOrder: Int, at instant: ContinuousClock.Instant) {
        state.withLock { state in
            state.readers[reader].received += seqs.count
            state.readers[reader].outOfOrder += outOfOrder
            for seq in seqs where Int(seq) < state.lastArrival.count { state.lastArrival[Int(seq)] = instant }
        }
    }

    func closed(reader: Int) {
        state.withLock { $0.readers[reader].closed = true }
    }

    var readers: [Reader] { state.withLock { $0.readers } }
    var lastArrival: [ContinuousClock.Instant?] { state.withLock { $0.lastArrival } }
}

/// A reader that checks, line by line, that each published `seq` is the previous one plus one,
/// starting after its `hello`'s.
final class SeqTracker: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let log: DeliveryLog
    private let index: Int
    private var pending: ByteBuffer?
    private var expected: UInt64 = 0
    private static let seqKey = Array(#","seq":"#.utf8)
    private static let helloPrefix = Array(#"{"type":"hello""#.utf8)

    init(log: DeliveryLog, index: Int) {
        self.log = log
        self.index = index
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let now = ContinuousClock.now
        var bytes = unwrapInboundIn(data)
        if pending == nil { pending = bytes } else { pending?.writeBuffer(&bytes) }
        guard var buffer = pending else { return }
        var seqs: [UInt64] = []
        var outOfOrder = 0
        var sawHello = false
        let consumed = buffer.withUnsafeReadableBytes { raw in
            var lineStart = 0
            var index = 0
            while index < raw.count {
                if raw[index] == 0x0A {
                    let line = UnsafeRawBufferPointer(rebasing: raw[lineStart..<index])
                    let seq = Self.seq(in: line)
                    if line.starts(with: Self.helloPrefix) {
                        sawHello = true
                    } else {
                        if seq != expected { outOfOrder += 1 }
                        seqs.append(seq)
                    }
                    expected = seq + 1
                    lineStart = index + 1
                }
                index += 1
            }
            return lineStart
        }
        buffer.moveReaderIndex(forwardBy: consumed)
        pending = buffer.readableBytes > 0 ? buffer : nil
        if sawHello { log.hello(reader: index) }
        if !seqs.isEmpty { log.arrived(reader: index, seqs: seqs, outOfOrder: outOfOrder, at: now) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        log.closed(reader: index)
    }

    /// The digits after `,"seq":`, found by a plain scan (the envelope's keys are in a fixed order).
    private static func seq(in line: UnsafeRawBufferPointer) -> UInt64 {
        let key = seqKey
        guard line.count > key.count else { return 0 }
        var start = 0
        search: while start + key.count <= line.count {
            for offset in 0..<key.count where line[start + offset] != key[offset] {
                start += 1
                continue search
            }
            break
        }
        var value: UInt64 = 0
        var position = start + key.count
        while position < line.count, line[position] >= UInt8(ascii: "0"), line[position] <= UInt8(ascii: "9") {
            value = value * 10 + UInt64(line[position] - UInt8(ascii: "0"))
            position += 1
        }
        return value
    }
}

/// Latency percentiles of a list of durations.
struct Percentiles: CustomStringConvertible {
    let p50: Duration
    let p90: Duration
    let p99: Duration
    let max: Duration

    init(_ values: [Duration]) {
        let sorted = values.sorted()
        func at(_ fraction: Double) -> Duration {
            sorted.isEmpty ? .zero : sorted[Swift.min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
        }
        p50 = at(0.50)
        p90 = at(0.90)
        p99 = at(0.99)
        max = sorted.last ?? .zero
    }

    var description: String {
        "p50 \(Self.micros(p50)) µs, p90 \(Self.micros(p90)) µs, p99 \(Self.micros(p99)) µs, max \(Self.micros(max)) µs"
    }

    static func micros(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
    }
}
