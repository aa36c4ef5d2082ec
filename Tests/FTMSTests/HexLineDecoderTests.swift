import DeterministicRandom
import JSON
import FTMS
import Testing

/// The bulk decoder must print exactly what decoding each line on its own prints (the
/// reference below is the per-line path `decode` used before: ``Hex/parse(_:)``, then
/// ``FTMSMessage/json``), however its input is cut into reads.
@Suite("Hex lines to JSON in bulk")
struct HexLineDecoderTests {
    /// The per-line reference, written from the line rules alone.
    static func reference(_ input: [UInt8], characteristic: Characteristic, maximumLineLength: Int) -> (String, failed: Int, lines: Int) {
        var lines = input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
        if lines.last?.isEmpty == true { lines.removeLast() }
        var output = ""
        var failed = 0
        for (index, raw) in lines.enumerated() {
            let number = index + 1
            if raw.count > maximumLineLength {
                failed += 1
                output += #"{"line":\#(number),"error":"line is \#(raw.count) bytes, longer than any frame"}"# + "\n"
                continue
            }
            var line = raw
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            guard let first = line.firstIndex(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) else { continue }
            if line[first] == UInt8(ascii: "#") { continue }
            switch Hex.parse(String(decoding: line, as: UTF8.self)) {
            case .success(let bytes):
                output += FTMSMessage(characteristic: characteristic, decoding: bytes).json + "\n"
            case .failure(let error):
                failed += 1
                var json = JSONBuffer()
                json.appendString(error.description)
                output += #"{"line":\#(number),"error":\#(json.string)}"# + "\n"
            }
        }
        return (output, failed, lines.count)
    }

    /// Feeds `input` in reads of random sizes, keeping the unconsumed tail as a caller must.
    static func bulk(
        _ input: [UInt8], characteristic: Characteristic, maximumLineLength: Int, outputLimit: Int,
        using random: inout SplitMix64
    ) -> (String, failed: Int, lines: Int) {
        var decoder = HexLineDecoder(characteristic: characteristic, maximumLineLength: maximumLineLength)
        var json = JSONBuffer(capacity: 64)
        var output: [UInt8] = []
        var pending: [UInt8] = []
        var offset = 0
        while offset < input.count {
            let read = min(Int.random(in: 1...(maximumLineLength + 40), using: &random), input.count - offset)
            pending += input[offset..<(offset + read)]
            offset += read
            while true {
                let consumed = pending.withUnsafeBytes { decoder.consume($0, into: &json, outputLimit: outputLimit) }
                pending.removeFirst(consumed)
                output += json.bytes
                let stoppedForOutput = json.count >= outputLimit
                json.removeAll()
                if !stoppedForOutput { break }
            }
            #expect(pending.count <= maximumLineLength, "the tail a caller keeps is bounded")
        }
        pending.withUnsafeBytes { decoder.finish($0, into: &json) }
        output += json.bytes
        return (String(decoding: output, as: UTF8.self), decoder.failedLines, decoder.lineNumber)
    }

    static func randomLine(using random: inout SplitMix64) -> String {
        let frame = random.bytes(count: Int.random(in: 0...24, using: &random))
        let hex = frame.map { byte in
            let text = String(byte, radix: 16)
            return text.count == 1 ? "0" + text : text
        }
        switch Int.random(in: 0..<12, using: &random) {
        case 0...3: return hex.joined()
        case 4...6: return hex.joined(separator: " ")
        case 7: return hex.joined(separator: ":").uppercased() + "\r"
        case 8: return "  # comment " + hex.joined()
        case 9: return ["", " ", "\t", "\r"].randomElement(using: &random) ?? ""
        case 10: return String(hex.joined().dropLast())  // odd digit count, or empty
        default: return "0x" + hex.joined(separator: " 0x") + (Bool.random(using: &random) ? " zz" : "")
        }
    }

    @Test(arguments: [Characteristic.indoorBikeData, .rowerData, .fitnessMachineFeature, .fitnessMachineControlPoint, .trainingStatus])
    func agreesWithTheLineByLineReference(characteristic: Characteristic) {
        var random = SplitMix64(seed: 0x15_0000 + UInt64(characteristic.rawValue))
        for _ in 0..<40 {
            var text = (0..<Int.random(in: 0...60, using: &random)).map { _ in Self.randomLine(using: &random) }.joined(separator: "\n")
            if Bool.random(using: &random) { text += "\n" }
            if Int.random(in: 0..<4, using: &random) == 0 {
                text += String(repeating: "ab", count: Int.random(in: 60...200, using: &random)) + "\n44 02 da 02 02"
            }
            let input = Array(text.utf8)
            let maximum = 128
            let expected = Self.reference(input, characteristic: characteristic, maximumLineLength: maximum)
            let actual = Self.bulk(
                input, characteristic: characteristic, maximumLineLength: maximum,
                outputLimit: Int.random(in: 1...2_000, using: &random), using: &random)
            #expect(actual.0 == expected.0)
            #expect(actual.failed == expected.failed)
            #expect(actual.lines == expected.lines)
        }
    }

    /// An over-long line is one error with its whole length and its own line number, even
    /// when it spans many reads, and the next line decodes.
    @Test func overLongLineSpanningReads() {
        let input = Array(("4402da0202\n" + String(repeating: "a", count: 1_000) + "\r\n4402da0202").utf8)
        var random = SplitMix64(seed: 7)
        let result = Self.bulk(input, characteristic: .indoorBikeData, maximumLineLength: 64, outputLimit: .max, using: &random)
        let lines = result.0.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[1] == #"{"line":2,"error":"line is 1001 bytes, longer than any frame"}"#)
        #expect(lines[0] == lines[2])
        #expect(result.failed == 1 && result.lines == 3)
    }

    /// A command-line frame has no comment rule: `#` is a bad hex character there.
    @Test func argumentsAreFramesNotLines() {
        var decoder = HexLineDecoder(characteristic: .indoorBikeData)
        var json = JSONBuffer()
        for argument in ["44 02 da 02 02 01 22 01 00", "#44", ""] {
            var utf8 = Array(argument.utf8)
            utf8.withUnsafeMutableBufferPointer { decoder.decode(argument: UnsafeBufferPointer($0), into: &json) }
        }
        let lines = json.string.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[1] == #"{"line":2,"error":"invalid hex character '#' at column 1"}"#)
        #expect(decoder.lineNumber == 3 && decoder.failedLines == 1)
    }
}
