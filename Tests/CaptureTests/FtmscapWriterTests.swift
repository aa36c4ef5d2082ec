import DeterministicRandom
import Capture
import FTMS
import Testing

@Suite(".ftmscap writer")
struct FtmscapWriterTests {
    static let header = CaptureHeader(
        name: "SF-Bike-0001", address: "C0:11:22:33:44:01", manufacturer: "SolidFocus", model: "SF-Bike-M1",
        type: .bike, feature: [0x83, 0x14, 0x00, 0x00, 0x0C, 0x00, 0x00, 0x00],
        start: .seconds(1_795_248_000) + .milliseconds(250))

    @Test func writesTheCanonicalLines() {
        let events: [CaptureEvent] = [
            CaptureEvent(time: .milliseconds(500), kind: .connected),
            .attribute(.notify, AttributeUUID(short: 0x2AD2), [0x44, 0x02, 0xDA, 0x02], at: .milliseconds(1250)),
            .attribute(
                .write, AttributeUUID(high: 0x6E40_0002_B5A3_F393, low: 0xE0A9_E50E_24DC_CA9E), [], at: .microseconds(1_700_001)),
            .attribute(.indicate, AttributeUUID(short: 0x2AD9), [0x80, 0x00, 0x01], at: .nanoseconds(1)),
            CaptureEvent(time: .seconds(10), kind: .disconnected),
        ]
        let text = String(decoding: FtmscapWriter.encode(header: Self.header, events: events), as: UTF8.self)
        #expect(
            text == """
                {"format":"ftmscap","version":1,"start":"2026-11-21T08:00:00.25Z","machine":{"name":"SF-Bike-0001",\
                "address":"C0:11:22:33:44:01","manufacturer":"SolidFocus","model":"SF-Bike-M1","type":"bike",\
                "feature":"831400000c000000"}}
                {"t":0.5,"event":"connected"}
                {"t":1.25,"uuid":"2ad2","op":"notify","hex":"4402da02"}
                {"t":1.700001,"uuid":"6e400002-b5a3-f393-e0a9-e50e24dcca9e","op":"write","hex":""}
                {"t":0.000000001,"uuid":"2ad9","op":"indicate","hex":"800001"}
                {"t":10,"event":"disconnected"}

                """)
    }

    @Test func anEmptyHeaderStillSaysWhatItIs() {
        #expect(
            String(decoding: FtmscapWriter.encode(header: CaptureHeader(), events: []), as: UTF8.self)
                == "{\"format\":\"ftmscap\",\"version\":1,\"machine\":{}}\n")
    }

    @Test(arguments: [
        (Duration.zero, "\"1970-01-01T00:00:00Z\""),
        (.seconds(951_868_800), "\"2000-03-01T00:00:00Z\""),
        (.seconds(1_709_251_199) + .microseconds(999_999), "\"2024-02-29T23:59:59.999999Z\""),
        (.seconds(-1), "\"1969-12-31T23:59:59Z\""),
        (.seconds(253_402_300_799), "\"9999-12-31T23:59:59Z\""),
        (.seconds(253_402_300_800), "253402300800"),
    ] as [(Duration, String)])
    func startIsAnISO8601InstantInUTC(_ start: Duration, _ written: String) throws {
        let bytes = FtmscapWriter.encode(header: CaptureHeader(start: start), events: [])
        #expect(String(decoding: bytes, as: UTF8.self) == "{\"format\":\"ftmscap\",\"version\":1,\"start\":\(written),\"machine\":{}}\n")
        #expect(try FtmscapReader(bytes: bytes).header.start == start)
    }

    @Test func aWholeBtsnoopSessionRoundTrips() throws {
        var btsnoop = try BtsnoopReader(bytes: BikeSessionFixture.build(.monitor).bytes)
        let events = drain(&btsnoop).events
        let bytes = FtmscapWriter.encode(header: btsnoop.header, events: events)
        var reader = try FtmscapReader(bytes: bytes)
        #expect(reader.header == BikeSessionFixture.expectedHeader)
        let (read, error) = drain(&reader)
        #expect(error == nil)
        #expect(read == BikeSessionFixture.expectedEvents)
    }

    @Test func randomCapturesRoundTripExactly() throws {
        var random = SplitMix64(seed: 0xF7_CA9)
        let names = ["SF-Bike-0001", "Zwift \"Hub\"", "vélo\nline", "tab\there", "\u{1}ctl", "😀 rower", ""]
        for round in 0..<300 {
            let header = CaptureHeader(
                name: random.pick(names), address: random.pick(["C0:11:22:33:44:01", nil]),
                manufacturer: random.pick(names), model: random.pick([nil, "M1"]),
                type: random.pick([nil, .bike, .rower]), feature: random.pick([nil, [], [0x0B, 0x40]]),
                start: random.pick([nil, .seconds(Int64(random.next() % 4_000_000_000)) + .nanoseconds(Int64(random.next() % 1_000_000_000))]))
            let events = (0..<Int(random.next() % 40)).map { _ in random.event() }
            let bytes = FtmscapWriter.encode(header: header, events: events)
            var reader = try FtmscapReader(bytes: bytes)
            #expect(reader.header == header, "round \(round)")
            let (read, error) = drain(&reader)
            #expect(error == nil, "round \(round)")
            #expect(read == events, "round \(round)")
        }
    }
}

extension SplitMix64 {
    mutating func pick<T>(_ choices: [T]) -> T {
        choices[Int(next() % UInt64(choices.count))]
    }

    /// Any event the model can hold: times down to the attosecond and negative, 16- and
    /// 128-bit UUIDs, values from empty to the ATT maximum.
    mutating func event() -> CaptureEvent {
        let time = Duration(attoseconds: Int128(Int64(bitPattern: next()) >> 4) * Int128(next() % 1_000_000 + 1))
        switch next() % 6 {
        case 0: return CaptureEvent(time: time, kind: .connected)
        case 1: return CaptureEvent(time: time, kind: .disconnected)
        default:
            let uuid = next() % 2 == 0 ? AttributeUUID(short: UInt16(truncatingIfNeeded: next())) : AttributeUUID(high: next(), low: next())
            let length = next() % 8 == 0 ? Int(next() % 513) : Int(next() % 33)
            let value = AttributeValue((0..<length).map { _ in UInt8(truncatingIfNeeded: next()) })
            return .attribute(pick(AttributeOperation.allCases), uuid, value, at: time)
        }
    }
}
