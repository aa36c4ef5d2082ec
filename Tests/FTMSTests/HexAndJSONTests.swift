import DeterministicRandom
import JSON
import FTMS
import Testing

@Suite("Hex parsing")
struct HexTests {
    @Test(arguments: [
        ("54 08 95", [0x54, 0x08, 0x95]), ("54:08:95", [0x54, 0x08, 0x95]), ("540895", [0x54, 0x08, 0x95]),
        ("0x54 0x08", [0x54, 0x08]), ("0x5408", [0x54, 0x08]), ("  AB\tcd ", [0xAB, 0xCD]), ("", []),
        ("54,08", [0x54, 0x08]), ("0X54 0x08", [0x54, 0x08]), ("00 0a", [0x00, 0x0A]),
    ] as [(String, [UInt8])])
    func accepts(_ text: String, _ bytes: [UInt8]) {
        #expect(Hex.bytes(text) == bytes)
    }

    @Test(arguments: [
        ("zz", "invalid hex character 'z' at column 1"),
        ("54 0", "odd number of hex digits in the group ending at column 4"),
        ("5 40", "odd number of hex digits in the group ending at column 1"),
        ("54 g8", "invalid hex character 'g' at column 4"),
        ("500x", "invalid hex character 'x' at column 4"),
        ("5x", "invalid hex character 'x' at column 2"),
        ("00x1", "invalid hex character 'x' at column 3"),
        ("@", "invalid hex character '@' at column 1"),
    ])
    func rejectsWithAReason(_ text: String, _ reason: String) {
        guard case .failure(let error) = Hex.parse(text) else {
            Issue.record("'\(text)' parsed")
            return
        }
        #expect(error.description == reason)
    }

    @Test func framesLongerThanAnAttributeValueAreRejected() {
        #expect(Hex.bytes(String(repeating: "ab", count: 512))?.count == 512)
        guard case .failure(let error) = Hex.parse(String(repeating: "ab", count: 513)) else {
            Issue.record("513 bytes parsed")
            return
        }
        #expect(error.reason == .tooLong)
    }

    @Test func stringRoundTrips() {
        var random = SplitMix64(seed: 16)
        for _ in 0..<1_000 {
            let bytes = random.bytes(count: Int.random(in: 0...32, using: &random))
            #expect(Hex.bytes(Hex.string(bytes)) == bytes)
        }
    }
}

@Suite("JSON number formatting")
struct JSONNumberTests {
    func text(_ raw: Int32, _ scale: Scale) -> String {
        var buffer = JSONBuffer()
        buffer.appendFixedPoint(raw, scale: scale)
        return String(decoding: buffer.bytes, as: UTF8.self)
    }

    @Test func knownAnswers() {
        #expect(text(1173, .hundredth) == "11.73")
        #expect(text(1100, .hundredth) == "11")
        #expect(text(1250, .hundredth) == "12.5")
        #expect(text(25, .half) == "12.5")
        #expect(text(-11, .hundredth) == "-0.11")
        #expect(text(40, .tenThousandth) == "0.004")
        #expect(text(0, .tenth) == "0")
        #expect(text(Int32.min, .one) == "-2147483648")
        #expect(text(-1, .half) == "-0.5")
    }

    /// Shortest exact form: parses back to the exact quotient, with no trailing zeros.
    @Test func shortestExactFormProperty() {
        var random = SplitMix64(seed: 12)
        let scales: [Scale] = [.one, .half, .tenth, .hundredth, .thousandth, .tenThousandth]
        for _ in 0..<20_000 {
            let raw = Int32.random(in: -0x80_0000...0xFF_FFFF, using: &random)
            guard let scale = scales.randomElement(using: &random) else { continue }
            let printed = text(raw, scale)
            #expect(Double(printed) == Double(raw) / scale.testDivisor, "\(raw) \(scale) → \(printed)")
            if printed.contains(".") {
                #expect(!printed.hasSuffix("0") && !printed.hasSuffix("."), "\(printed) is not shortest")
            }
        }
    }

    @Test func stringsAreEscaped() throws {
        var buffer = JSONBuffer()
        buffer.appendString("a\"b\\c\nd\u{1}é")
        #expect(String(decoding: buffer.bytes, as: UTF8.self) == #""a\"b\\c\nd\u0001é""#)
    }

    /// A `String` with nothing to escape is copied whole; one with something to escape, even
    /// only U+2028 after plain text, is escaped as the generic walk escapes it.
    @Test func aStringIsCopiedWholeOnlyWhenNothingInItNeedsEscaping() throws {
        var buffer = JSONBuffer()
        let plain: String = "SF-Bike-0001 é"
        let separator: String = "ride\u{2028}é\u{7F}"
        buffer.appendString(plain)
        buffer.appendString(separator)
        buffer.appendString(separator[...])
        #expect(String(decoding: buffer.bytes, as: UTF8.self) == #""SF-Bike-0001 é""ride\u2028é\u007f""ride\u2028é\u007f""#)
    }
}

@Suite("Characteristic names")
struct CharacteristicNameTests {
    @Test func parsesEverySpelling() {
        #expect(Characteristic(parsing: "2ad2") == .indoorBikeData)
        #expect(Characteristic(parsing: "0x2AD2") == .indoorBikeData)
        #expect(Characteristic(parsing: "indoor-bike-data") == .indoorBikeData)
        #expect(Characteristic(parsing: "rower_data") == .rowerData)
        #expect(Characteristic(parsing: "00002ad9-0000-1000-8000-00805f9b34fb") == .fitnessMachineControlPoint)
        #expect(Characteristic(parsing: "2a37") == nil)
        #expect(Characteristic(parsing: "bike") == nil)
        #expect(Characteristic(parsing: "") == nil)
        for characteristic in Characteristic.allCases {
            #expect(Characteristic(parsing: characteristic.argumentName) == characteristic)
            #expect(Characteristic(parsing: characteristic.uuid) == characteristic)
        }
    }
}
