import DeterministicRandom
import JSON
import FTMS
import Testing

/// `decode`'s data-record path writes a frame's JSON straight from its bytes;
/// it must print exactly what ``DataRecord/init(kind:decoding:)`` and
/// ``DataRecord/writeJSON(into:)`` print, for every flags value, every value a field can hold,
/// and frames that are whole, short or long. The hex reader's eight-digits-at-a-time path must
/// accept and refuse exactly what ``Hex/parse(_:)`` does.
@Suite("Data frames straight to JSON")
struct DataFrameJSONTests {
    static let kinds: [DataRecord.Kind] = [.indoorBikeData, .rowerData]

    /// A raw value biased to where formatting goes wrong: 0, 1, the format's ends, the
    /// sentinel, the plausible range's ends and one past them, round hundreds, and any value.
    static func raw(_ descriptor: FieldDescriptor, using random: inout SplitMix64) -> Int32 {
        let range = descriptor.format.rawRange
        var edges: [Int32] = [0, 1, 2, 5, 9, 10, 99, 100, 101, 105, 110, 1_000, 9_999, 10_000, 10_001, 99_999, 100_000,
                              range.lowerBound, range.upperBound, range.upperBound - 1, -1, -100, -105]
        if let sentinel = descriptor.notAvailable { edges += [sentinel, sentinel, sentinel] }
        if let plausible = descriptor.plausible {
            edges += [plausible.lowerBound, plausible.upperBound, plausible.lowerBound - 1, plausible.upperBound + 1]
        }
        let value = Int.random(in: 0..<3, using: &random) == 0
            ? edges.randomElement(using: &random) ?? 0
            : Int32.random(in: range, using: &random)
        return min(max(value, range.lowerBound), range.upperBound)
    }

    /// Flags (any 16 bits, reserved ones included), then every field they call for, then,
    /// sometimes, bytes cut off or added.
    static func frame(_ kind: DataRecord.Kind, using random: inout SplitMix64) -> [UInt8] {
        let flags = UInt16.random(in: .min ... .max, using: &random) & (Bool.random(using: &random) ? 0x1FFF : 0xFFFF)
        var bytes = [UInt8(flags & 0xFF), UInt8(flags >> 8)]
        for entry in kind.layout.entries where RecordLayout.isPresent(flagBit: entry.flagBit, in: flags) {
            let descriptor = entry.field.descriptor
            let value = UInt32(bitPattern: raw(descriptor, using: &random))
            for index in 0..<descriptor.format.byteCount { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
        }
        switch Int.random(in: 0..<10, using: &random) {
        case 0: bytes.removeLast(min(bytes.count - 1, Int.random(in: 1...4, using: &random)))  // truncated, maybe no flags
        case 1: bytes += random.bytes(count: Int.random(in: 1...6, using: &random))        // trailing bytes
        default: break
        }
        return bytes
    }

    static func hex(_ bytes: [UInt8], using random: inout SplitMix64) -> String {
        let digits = bytes.map { byte in
            let text = String(byte, radix: 16)
            return text.count == 1 ? "0" + text : text
        }
        switch Int.random(in: 0..<6, using: &random) {
        case 0: return digits.joined().uppercased()
        case 1: return digits.joined(separator: " ")
        case 2: return String(digits.joined().map { Bool.random(using: &random) ? Character($0.uppercased()) : $0 })
        default: return digits.joined()
        }
    }

    static func recordPath(_ frame: [UInt8], _ kind: DataRecord.Kind) -> String {
        var json = JSONBuffer()
        DataRecord(kind: kind, decoding: frame).writeJSON(into: &json)
        return json.string + "\n"
    }

    static func bulk(_ text: String, _ characteristic: Characteristic) -> [String] {
        var decoder = HexLineDecoder(characteristic: characteristic)
        var json = JSONBuffer()
        let input = Array(text.utf8)
        input.withUnsafeBytes { buffer in
            let used = decoder.consume(buffer, into: &json)
            decoder.finish(UnsafeRawBufferPointer(rebasing: buffer[used...]), into: &json)
        }
        return Array(json.string.split(separator: "\n", omittingEmptySubsequences: false).map { $0 + "\n" }.dropLast())
    }

    @Test(arguments: kinds)
    func agreesWithTheRecordPath(kind: DataRecord.Kind) {
        var random = SplitMix64(seed: 0x15_0004 + UInt64(kind.characteristic.rawValue))
        let frames = (0..<30_000).map { _ in Self.frame(kind, using: &random) }
        let text = frames.map { Self.hex($0, using: &random) }.joined(separator: "\n")
        let lines = Self.bulk(text, kind.characteristic)
        #expect(lines.count == frames.count)
        var mismatches = 0
        for (frame, line) in zip(frames, lines) where line != Self.recordPath(frame, kind) {
            mismatches += 1
            if mismatches <= 3 {
                Issue.record("frame \(frame): \(line) is not \(Self.recordPath(frame, kind))")
            }
        }
        #expect(mismatches == 0)
    }

    /// Known answers for the number forms: the shortest exact decimal, signs, sentinels, the
    /// implausible list, trailing bytes.
    @Test func knownAnswers() {
        // Flags 0x0b46: bit 0 clear (speed), 1 (average speed), 2 (cadence), 6 (power),
        // 8 (energy triplet), 9 (heart rate), 11 (elapsed time).
        let frame: [UInt8] = [0x46, 0x0b, 0x69, 0x00, 0xff, 0xff, 0x01, 0x00, 0x00, 0x80,
                              0x0a, 0x00, 0xff, 0xff, 0xff, 0x00, 0x3c, 0x00, 0xAA]
        let line = Self.bulk(frame.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined(), .indoorBikeData)
        #expect(line == [
            #"{"characteristic":"indoor_bike_data","uuid":"2ad2","flags":2886,"more_data":false,"#
                + #""instantaneous_speed_kmh":1.05,"average_speed_kmh":655.35,"instantaneous_cadence_rpm":0.5,"#
                + #""instantaneous_power_w":-32768,"total_energy_kcal":10,"energy_per_hour_kcal":null,"#
                + #""energy_per_minute_kcal":null,"heart_rate_bpm":0,"elapsed_time_s":60,"#
                + #""implausible":["average_speed_kmh","instantaneous_power_w"],"trailing_bytes":1}"# + "\n",
        ])
        #expect(line == [Self.recordPath(frame, .indoorBikeData)])
    }

    /// One character that is not a hex digit, anywhere in a line, in both spellings (or a digit
    /// where a space was): the word-at-a-time readers must hand the line to the general parser
    /// like the byte-wise one did.
    @Test func nonDigitsAnywhereAreWhatTheParserSays() {
        var random = SplitMix64(seed: 0x15_0005)
        let strangers: [Character] = ["/", ":", "@", "G", "g", "`", "{", "z", "Z", "-", "+", ".", "\u{10}", "\u{19}", "\u{7f}", "x", "\t", "0", "a"]
        var text: [String] = []
        for _ in 0..<4_000 {
            var line = Array(Self.hex(Self.frame(.rowerData, using: &random), using: &random))
            if !line.isEmpty {
                line[Int.random(in: 0..<line.count, using: &random)] = strangers.randomElement(using: &random) ?? "g"
            }
            text.append(String(line))
        }
        let input = Array(text.joined(separator: "\n").utf8)
        let expected = HexLineDecoderTests.reference(input, characteristic: .rowerData, maximumLineLength: 1 << 16)
        var random2 = SplitMix64(seed: 1)
        let actual = HexLineDecoderTests.bulk(input, characteristic: .rowerData, maximumLineLength: 1 << 16, outputLimit: .max, using: &random2)
        #expect(actual.0 == expected.0)
        #expect(actual.failed == expected.failed)
        #expect(expected.failed > 1_000, "most lines are refused")
    }
}
