import Benchmark
import FTMS
import JSON

/// Decoding one data record must take at most 50 ns and allocate nothing.
///
/// Each benchmark decodes a fixed set of real frames (the Direto XR ride and the Viking Pro V
/// stroke, energy and distance packets) so the figure is per record across realistic flag
/// layouts rather than one lucky frame. `scalingFactor: .kilo` makes the reported time per
/// inner iteration, i.e. per decoded record.
let bikeFrames: [[UInt8]] = [
    [0x54, 0x08, 0x95, 0x04, 0x3a, 0x00, 0x14, 0x03, 0x00, 0x27, 0x00, 0x80, 0x03],
    [0x44, 0x02, 0xda, 0x02, 0x02, 0x01, 0x22, 0x01, 0x00],
    [0x64, 0x02, 0xc1, 0x08, 0x00, 0x00, 0x14, 0x00, 0x1c, 0x00, 0x00],
    [0xfe, 0x1f, 0x39, 0x30, 0x64, 0x00, 0xb5, 0x00, 0x02, 0x00, 0x56, 0x34, 0x12, 0xf6, 0xff, 0x38, 0xff,
     0xff, 0x7f, 0xff, 0xff, 0x02, 0x01, 0xff, 0xff, 0x7b, 0xff, 0xff, 0x01, 0x00],
]
let rowerFrames: [[UInt8]] = [
    [0xf8, 0x00, 0x26, 0x0b, 0x00, 0xc7, 0x00, 0x00, 0x00, 0x2c, 0x00, 0x1b, 0x00, 0x02, 0x00],
    [0x01, 0x01, 0x04, 0x00, 0xc5, 0x01, 0x07],
    [0x05, 0x0a, 0x87, 0x00, 0x00, 0x00, 0x3e, 0x00],
    [0xfe, 0x1f, 0x51, 0xcd, 0xab, 0x30, 0xff, 0xff, 0xff, 0x78, 0x00, 0x82, 0x00, 0xff, 0xff, 0x00, 0x01,
     0x00, 0x80, 0x10, 0x00, 0xff, 0xff, 0x05, 0x00, 0x00, 0x10, 0x0e, 0xff, 0xff],
]

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        scalingFactor: .kilo,
        maxDuration: .seconds(3),
        maxIterations: 1_000
    )

    for (name, kind, frames) in [
        ("Decode 0x2AD2 Indoor Bike Data", DataRecord.Kind.indoorBikeData, bikeFrames),
        ("Decode 0x2AD1 Rower Data", DataRecord.Kind.rowerData, rowerFrames),
    ] {
        // The frames back to back in one buffer, borrowed once: the loop then measures
        // decoding, not array bookkeeping.
        let packed = frames.flatMap { $0 }
        let bounds = frames.reduce(into: [Range<Int>]()) { ranges, frame in
            let start = ranges.last?.upperBound ?? 0
            ranges.append(start..<(start + frame.count))
        }
        Benchmark(name) { benchmark in
            var checksum: Int32 = 0
            packed.withUnsafeBytes { buffer in
                for index in benchmark.scaledIterations {
                    let frame = UnsafeRawBufferPointer(rebasing: buffer[bounds[index & 3]])
                    let record = DataRecord(kind: kind, decoding: frame)
                    checksum &+= record.values.raw(.instantaneousPower) ?? 0
                }
            }
            blackHole(checksum)
        }
    }

    Benchmark("Decode and write JSON, 0x2AD2") { benchmark in
        var json = JSONBuffer(capacity: 1 << 16)
        for index in benchmark.scaledIterations {
            let frame = bikeFrames[index & 3]
            let message = frame.withUnsafeBytes { FTMSMessage(characteristic: .indoorBikeData, decoding: $0) }
            message.writeJSON(into: &json)
            if json.count > 60_000 { json.removeAll() }
        }
        blackHole(json.count)
    }

    // `ftms-bridge decode`'s bulk path without the process: hex lines (the real frames above,
    // contiguous and spaced) found with memchr, parsed, decoded and printed as JSON lines by
    // HexLineDecoder into one reused buffer. Per line; scripts/bench-decode.sh times the
    // whole process on a million random frames per characteristic.
    for (name, characteristic, frames) in [
        ("Hex line to JSON line, 0x2AD2", Characteristic.indoorBikeData, bikeFrames),
        ("Hex line to JSON line, 0x2AD1", Characteristic.rowerData, rowerFrames),
    ] {
        var text: [UInt8] = []
        var lines: [Range<Int>] = []
        for index in 0..<1_024 {
            let frame = frames[index & 3]
            let hex = frame.map { byte in
                let digits = Array("0123456789abcdef".utf8)
                return [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]]
            }
            let line = index & 4 == 0 ? Array(hex.joined()) : Array(hex.joined(separator: [UInt8(ascii: " ")]))
            let start = text.count
            text += line + [UInt8(ascii: "\n")]
            lines.append(start..<text.count)
        }
        hexLinesBenchmark(name, characteristic, text: text, lines: lines)
    }

    // The same bulk path on `scripts/bench-decode.sh`'s kind of input: random flags and
    // uniformly random values, so no branch can learn the frames (the four real frames above
    // repeat every four lines). Per line; the record path on the same frames is the reference
    // the bulk path's straight-to-JSON writer is compared against.
    for (characteristic, kind) in [(Characteristic.indoorBikeData, DataRecord.Kind.indoorBikeData), (.rowerData, .rowerData)] {
        let frames = randomFrames(kind, count: 4_096)
        var text: [UInt8] = []
        var lines: [Range<Int>] = []
        let digits = Array("0123456789abcdef".utf8)
        for frame in frames {
            let start = text.count
            for byte in frame { text += [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]] }
            text.append(UInt8(ascii: "\n"))
            lines.append(start..<text.count)
        }
        let uuid = characteristic.shortUUID
        hexLinesBenchmark("Hex line to JSON line, random \(uuid) frames", characteristic, text: text, lines: lines)
        Benchmark("Record path (DataRecord, writeJSON), random \(uuid) frames") { benchmark in
            var json = JSONBuffer(capacity: 1 << 17)
            let packed = frames.flatMap { $0 }
            var bounds: [Range<Int>] = []
            for frame in frames { bounds.append((bounds.last?.upperBound ?? 0)..<((bounds.last?.upperBound ?? 0) + frame.count)) }
            packed.withUnsafeBytes { buffer in
                for index in benchmark.scaledIterations {
                    DataRecord(kind: kind, decoding: UnsafeRawBufferPointer(rebasing: buffer[bounds[index & 4_095]])).writeJSON(into: &json)
                    json.append(UInt8(ascii: "\n"))
                    if json.count > 1 << 16 { json.removeAll() }
                }
            }
            blackHole(json.count)
        }
    }

    Benchmark("Merge split rower records") { benchmark in
        let records = rowerFrames.map { frame in frame.withUnsafeBytes { DataRecord(kind: .rowerData, decoding: $0) } }
        var merger = RecordMerger(kind: .rowerData)
        var emitted = 0
        for index in benchmark.scaledIterations {
            if merger.ingest(records[index & 3], at: .milliseconds(index * 250)) != nil { emitted += 1 }
        }
        blackHole(emitted)
    }
}

/// `HexLineDecoder.consume` over one line at a time of `text`, in turn (`lines.count` must be a
/// power of two), into one reused buffer.
func hexLinesBenchmark(_ name: String, _ characteristic: Characteristic, text: [UInt8], lines: [Range<Int>]) {
    let mask = lines.count - 1
    Benchmark(name) { benchmark in
        var decoder = HexLineDecoder(characteristic: characteristic)
        var json = JSONBuffer(capacity: 1 << 17)
        var consumed = 0
        text.withUnsafeBytes { buffer in
            for index in benchmark.scaledIterations {
                consumed &+= decoder.consume(UnsafeRawBufferPointer(rebasing: buffer[lines[index & mask]]), into: &json)
                if json.count > 1 << 16 { json.removeAll() }
            }
        }
        blackHole(consumed &+ json.count)
    }
}

/// Frames like `scripts/gen_frames.py`'s: 13 random flag bits, every field they call for with a
/// uniformly random value (SplitMix64, fixed seed, so every run decodes the same frames).
func randomFrames(_ kind: DataRecord.Kind, count: Int) -> [[UInt8]] {
    var state: UInt64 = 0x15_0004
    func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    return (0..<count).map { _ in
        let flags = UInt16(truncatingIfNeeded: next()) & 0x1FFF
        var frame = [UInt8(flags & 0xFF), UInt8(flags >> 8)]
        for entry in kind.layout.entries where RecordLayout.isPresent(flagBit: entry.flagBit, in: flags) {
            let value = next()
            for index in 0..<entry.field.descriptor.format.byteCount { frame.append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
        }
        return frame
    }
}
