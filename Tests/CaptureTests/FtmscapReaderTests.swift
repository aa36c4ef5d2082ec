import DeterministicRandom
import Capture
import Testing

@Suite(".ftmscap reader")
struct FtmscapReaderTests {
    static let bike = AttributeUUID(short: 0x2AD2)

    /// Everything a file yields; an error from the header line comes back like any other.
    private func read(_ text: String) -> (header: CaptureHeader, events: [CaptureEvent], error: CaptureError?, skipped: Int) {
        var reader: FtmscapReader
        do {
            reader = try FtmscapReader(bytes: Array(text.utf8))
        } catch {
            return (CaptureHeader(), [], error, 0)
        }
        let (events, error) = drain(&reader)
        return (reader.header, events, error, reader.skippedLines)
    }

    @Test func flatHeaderWithOtherToolsNames() throws {
        let capture = read(
            """
            {"ftmscap": 1, "name": "SF-Rower-0002", "addr": "C0:11:22:33:44:02", "manufacturer_name": "SolidFocus", \
            "model_number": "SF-Rower-M1", "type": "Rowing Machine", "features": "0x26 0x56 0x00 0x00", \
            "started_at": "2026-11-21T09:00:00+01:00", "notes": {"by": ["hand", 1]}}
            {"t": 0, "uuid": "2ad1", "op": "notify", "hex": "00"}
            """)
        #expect(
            capture.header
                == CaptureHeader(
                    name: "SF-Rower-0002", address: "C0:11:22:33:44:02", manufacturer: "SolidFocus", model: "SF-Rower-M1",
                    type: .rower, feature: [0x26, 0x56, 0x00, 0x00], start: .seconds(1_795_248_000)))
        #expect(capture.events == [.attribute(.notify, AttributeUUID(short: 0x2AD1), [0x00], at: .zero)])
    }

    @Test func nestedHeaderWinsOverNothingAndEscapesDecode() throws {
        let capture = read(
            #"""
            {"version":1,"machine":{"name":"SF-Bike-\u00e9\"1\"","address":"C0:11:22:33:44:01","kind":"indoor_bike",\#
            "feature":[131, 20, 0, 0]},"start":1795248000.5,"submitter":null}
            """#)
        #expect(
            capture.header
                == CaptureHeader(
                    name: "SF-Bike-é\"1\"", address: "C0:11:22:33:44:01", type: .bike, feature: [0x83, 0x14, 0, 0],
                    start: .seconds(1_795_248_000) + .milliseconds(500)))
        #expect(capture.events.isEmpty)
    }

    @Test func aBareDateStartIsMidnightUTC() throws {
        #expect(read(#"{"machine":{"type":"bike"},"date":"x","recorded_at":"2026-11-21"}"#).header.start == .seconds(1_795_219_200))
    }

    @Test(arguments: [
        "2ad2", "2AD2", "0x2AD2", "0x2ad2", "00002ad2", "00002ad2-0000-1000-8000-00805f9b34fb",
        "00002AD2-0000-1000-8000-00805F9B34FB", "00002ad200001000800000805f9b34fb", "indoor_bike_data", "indoor-bike-data",
    ])
    func uuidSpellings(_ spelling: String) throws {
        let capture = read("{\"t\":1,\"uuid\":\"\(spelling)\",\"op\":\"notify\",\"hex\":\"01\"}")
        #expect(capture.events == [.attribute(.notify, Self.bike, [0x01], at: .seconds(1))])
    }

    @Test(arguments: [
        #""hex":"4402da""#, #""hex":"44 02 DA""#, #""hex":"44:02:da""#, #""hex":"0x44 0x02 0xda""#,
        #""hex":" 44,02,da ""#, #""data":[68, 2, 218]"#, #""bytes":[ 68,2,218 ]"#, #""value":"4402DA""#,
    ])
    func valueSpellings(_ member: String) throws {
        let capture = read("{\"t\":1,\"uuid\":\"2ad2\",\"op\":\"notify\",\(member)}")
        #expect(capture.events == [.attribute(.notify, Self.bike, [0x44, 0x02, 0xDA], at: .seconds(1))])
    }

    @Test func connectionEventsUnknownKindsAndOtherToolsKeys() throws {
        let capture = read(
            "\u{FEFF}{\"name\":\"SF-Bike-0001\"}\r\n"
                + """
                # recorded by hand; blank lines and comments are skipped

                {"t": 1, "op": "connect"}
                {"t": 2, "event": "connected", "address": "C0:11:22:33:44:01"}
                {"ts": 2.5, "ev": "notify", "addr": "C0:11:22:33:44:01", "chr": "2ad2", "value": "01"}
                {"hex": "02", "time": "3", "characteristic": "0x2ad2"}
                {"t": 3.5, "event": "rssi", "rssi": -60}
                {"t": 3.6, "type": "services_resolved"}
                {"t": 4, "type": "Write_Request", "uuid": "2ad9", "hex": "00"}
                {"t": 5, "op": "INDICATION", "uuid": "2ad9", "hex": "800001", "extra": {"nested": [1, {"a": "}"}]}}
                {"t": 1.5e1, "op": "read", "uuid": "2acc", "hex": ""}
                {"t": 16, "op": "disconnected"}\r
                {"t": 17, "event": "Disconnect"}
                """)
        #expect(capture.header.name == "SF-Bike-0001")
        #expect(capture.header.type == nil)
        #expect(capture.error == nil)
        #expect(capture.skipped == 2)
        #expect(
            capture.events == [
                CaptureEvent(time: .seconds(1), kind: .connected),
                CaptureEvent(time: .seconds(2), kind: .connected),
                .attribute(.notify, Self.bike, [0x01], at: .milliseconds(2500)),
                .attribute(.notify, Self.bike, [0x02], at: .seconds(3)),
                .attribute(.write, AttributeUUID(short: 0x2AD9), [0x00], at: .seconds(4)),
                .attribute(.indicate, AttributeUUID(short: 0x2AD9), [0x80, 0x00, 0x01], at: .seconds(5)),
                .attribute(.read, AttributeUUID(short: 0x2ACC), [], at: .seconds(15)),
                CaptureEvent(time: .seconds(16), kind: .disconnected),
                CaptureEvent(time: .seconds(17), kind: .disconnected),
            ])
    }

    @Test func aCaptureWithNoHeaderStartsWithItsFirstEvent() throws {
        let capture = read(
            """

            {"t":0.25,"uuid":"2ad2","op":"notify","hex":"00"}
            {"t":0.5,"uuid":"2ad2","op":"notify","hex":"01"}
            """)
        #expect(capture.header == CaptureHeader())
        #expect(capture.events.map(\.time) == [.milliseconds(250), .milliseconds(500)])
    }

    @Test(arguments: [
        ("0.1", Duration.milliseconds(100)), ("-2.5", .milliseconds(-2500)), ("1e-3", .milliseconds(1)),
        ("1.5E+2", .seconds(150)), ("12345678901.000001", .seconds(12_345_678_901) + .microseconds(1)),
        ("0.000000000000000001", Duration(attoseconds: 1)), ("1.0000000000000000009", .seconds(1)),
        ("\"7.25\"", .milliseconds(7250)), ("0", .zero), ("+3", .seconds(3)),
    ] as [(String, Duration)])
    func timesAreExactDecimals(_ text: String, _ time: Duration) throws {
        let capture = read("{\"t\":\(text),\"event\":\"connected\"}")
        #expect(capture.events == [CaptureEvent(time: time, kind: .connected)])
    }

    @Test(arguments: [
        // (file, events before the damage, the one-line error)
        ("{\"name\":\"x\"}\n{\"t\":1,\"event\":\"connected\"}\n{\"t\":2,\"uuid\":\"2ad2\",\"op\":\"notify\",\"hex\":\"44\"", 1,
         "ftmscap line 3, column 46: line ends inside an object"),
        ("{\"name\":\"x\"}\n\n{\"t\":1,\"event\":\"connected\"}\n# note\n{\"uuid\":\"2ad2\",\"op\":\"notify\",\"hex\":\"44\"}", 1,
         "ftmscap line 5: event has no \"t\""),
        ("{\"t\":1,\"uuid\":\"2ad2\",\"op\":\"notify\",\"hex\":\"44 0g\"}", 0,
         "ftmscap line 1, column 47: \"hex\": invalid hex character 'g' at column 5"),
        ("{\"t\":1,\"uuid\":\"2ad2\",\"op\":\"notify\",\"hex\":\"4\"}", 0,
         "ftmscap line 1, column 43: \"hex\": odd number of hex digits in the group ending at column 1"),
        ("{\"t\":1,\"uuid\":\"2ad2x\",\"op\":\"notify\",\"hex\":\"44\"}", 0, "ftmscap line 1: \"uuid\" is not a 16-bit or 128-bit UUID"),
        ("{\"t\":1,\"op\":\"write\",\"hex\":\"44\"}", 0, "ftmscap line 1: write event has no \"uuid\""),
        ("{\"t\":1,\"op\":\"read\",\"uuid\":\"2ad2\"}", 0, "ftmscap line 1: read event has no \"hex\""),
        ("{\"t\":\"soon\",\"event\":\"connected\"}", 0, "ftmscap line 1: \"t\" is not a number of seconds"),
        ("{\"t\":1,\"event\":\"connected\"} x", 0, "ftmscap line 1, column 29: unexpected text after the object"),
        ("{\"t\":1,\"event\":\"connected\"}\n[1,2]", 1, "ftmscap line 2, column 1: expected a JSON object"),
        ("{\"t\":1 \"event\":\"connected\"}", 0, "ftmscap line 1, column 8: expected ',' or '}' after a value"),
        ("{\"t\":1,\"hex\":[1,300],\"uuid\":\"2ad2\"}", 0, "ftmscap line 1, column 19: byte array holds something other than numbers 0–255"),
    ] as [(String, Int, String)])
    func damageNamesTheLineAndKeepsWhatCameBefore(_ text: String, _ delivered: Int, _ message: String) throws {
        let capture = read(text)
        #expect(capture.events.count == delivered)
        #expect(capture.error?.description == message)
    }

    @Test(arguments: [
        ("{\"name\":\"x\"", "ftmscap line 1, column 12: line ends inside an object"),
        ("\n\n{\"name\":\"x\",,}", "ftmscap line 3, column 13: expected a quoted key"),
        ("{\"name\":\"x\", \"nested\": [1, 2}", "ftmscap line 1, column 29: mismatched '}'"),
    ])
    func aBrokenHeaderLineIsAnErrorBeforeAnyEvent(_ text: String, _ message: String) {
        #expect(performing: { try FtmscapReader(bytes: Array(text.utf8)) }, throws: { ($0 as? CaptureError)?.description == message })
    }

    @Test func unreadableHeaderFieldsAreLeftOutAndNamed() throws {
        let reader = try FtmscapReader(
            bytes: Array(#"{"machine":{"name":"SF-Bike-0001","feature":"zz","start":"tomorrow"},"features":"0b40"}"#.utf8))
        #expect(reader.header == CaptureHeader(name: "SF-Bike-0001", type: nil, feature: [0x0B, 0x40]))
        #expect(reader.ignoredHeaderFields == ["feature", "start"])
        let objects = try FtmscapReader(bytes: Array(#"{"feature":{"fitness_machine":11},"start":null}"#.utf8))
        #expect(objects.header == CaptureHeader())
        #expect(objects.ignoredHeaderFields == ["feature"])
    }

    @Test func aFileWrittenAsOneJSONArrayWithTrailingCommasStillReads() {
        let capture = read(
            """
            [
              {"type": "header", "machine": {"type": "bike",},},
              {"t": 1, "uuid": "2ad2", "op": "notify", "hex": "01",},
              {"t": 2, "type": "header"},
              {"t": 3, "event": "disconnected"}
            ]
            """)
        #expect(capture.error == nil)
        #expect(capture.header.type == .bike)
        #expect(capture.skipped == 1)
        #expect(
            capture.events == [
                .attribute(.notify, Self.bike, [0x01], at: .seconds(1)), CaptureEvent(time: .seconds(3), kind: .disconnected),
            ])
    }

    @Test func truncationAtEveryByteKeepsThePrefixAndNamesTheLine() throws {
        var btsnoop = try BtsnoopReader(bytes: BikeSessionFixture.build(.h4).bytes)
        let all = drain(&btsnoop).events
        let bytes = FtmscapWriter.encode(header: btsnoop.header, events: all)
        for cut in 0...bytes.count {
            let prefix = Array(bytes.prefix(cut))
            let line = prefix.count { $0 == 0x0A } + 1
            let atLineEnd = cut == 0 || prefix.last == 0x0A || bytes[cut] == 0x0A
            var reader: FtmscapReader
            do {
                reader = try FtmscapReader(bytes: prefix)
            } catch {
                #expect(error.location.line == 1 && !atLineEnd, "cut at \(cut)")
                continue
            }
            let (events, error) = drain(&reader)
            #expect(Array(all.prefix(events.count)) == events, "cut at \(cut)")
            #expect(atLineEnd ? error == nil : error?.location.line == line, "cut at \(cut): \(error?.description ?? "")")
        }
    }

    @Test func randomTextNeverTraps() {
        var random = SplitMix64(seed: 0x7E_C7)
        let alphabet = Array("{}[]\":,.-+eE0123456789 tuopxhabcdf\\\n#\r\t".utf8) + [0x00, 0xFF, 0xC3]
        let skeleton = Array("{\"t\":1.5,\"uuid\":\"2ad2\",\"op\":\"notify\",\"hex\":\"4402\"}\n".utf8)
        for round in 0..<3000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int(random.next() % 200)).map { _ in random.pick(alphabet) }
            } else {
                bytes = Array(repeating: skeleton, count: 3).flatMap { $0 }
                for _ in 0..<(1 + random.next() % 4) { bytes[Int(random.next() % UInt64(bytes.count))] = random.pick(alphabet) }
            }
            let lines = bytes.count { $0 == 0x0A } + 1
            do {
                var reader = try FtmscapReader(bytes: bytes)
                let (_, error) = drain(&reader)
                if let line = error?.location.line { #expect((1...lines).contains(line), "round \(round)") }
            } catch {
                #expect(error.location.line.map { (1...lines).contains($0) } ?? false, "round \(round)")
            }
        }
    }

    @Test func formatDetectionPicksTheReader() throws {
        var btsnoop = try captureReader(for: BikeSessionFixture.build(.hci).bytes)
        #expect(btsnoop.completeHeader() == BikeSessionFixture.expectedHeader)
        #expect(drain(&btsnoop).events == BikeSessionFixture.expectedEvents)
        var ftmscap = try captureReader(for: Array("{\"type\":\"rower\"}\n{\"t\":1,\"event\":\"connected\"}\n".utf8))
        #expect(ftmscap.completeHeader().type == .rower)
        #expect(drain(&ftmscap).events == [CaptureEvent(time: .seconds(1), kind: .connected)])
    }
}

extension CaptureError.Location {
    var line: Int? {
        if case .line(let line, _) = self { return line }
        return nil
    }
}
