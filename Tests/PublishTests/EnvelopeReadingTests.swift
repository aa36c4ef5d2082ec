import CivilTime
import DeterministicRandom
import Foundation
import FTMS
import JSON
import Publish
import Testing
import Workout

/// The envelope's reader (``MetricsMessage``) against its writer (the server's lines): every
/// kind the daemon writes reads back as what was published, and nothing else reads as an
/// envelope or traps.
@Suite("Envelope reading")
struct EnvelopeReadingTests {
    /// The fixture's clock: `1763712000.123` on the wire.
    static let time = UnixMilliseconds(seconds: 1_763_712_000.123)

    struct Kind: Sendable {
        var type: MessageType
        var machine: String?
        var session: String?
        var payload: JSONPayload
    }

    /// Every kind the daemon publishes, with the payloads its own writers make (the ride and the
    /// machine of the payload tests).
    static func kinds() throws -> [Kind] {
        var (engine, record) = SessionFiguresPayloadTests().ride()
        let origin = SessionFiguresPayloadTests.origin
        let progress = try #require(engine.progress(at: Timestamp(monotonic: .seconds(10), wallOrigin: origin)))
        let finished = try #require(engine.close(at: Timestamp(monotonic: .seconds(11), wallOrigin: origin), reason: .shutdown).last)
        let summary = try #require(finished.summary)
        let bike = MachineMessageFeatureTests.bike
        return [
            Kind(type: .machine, machine: bike.name, payload: MetricsPayloads.machine(bike, state: "ready", manufacturer: "SolidFocus")),
            Kind(type: .sessionState, machine: bike.name, session: finished.sessionID, payload: MetricsPayloads.sessionState(finished)),
            Kind(type: .sample, machine: bike.name, session: progress.sessionID, payload: MetricsPayloads.sample(record, session: progress)),
            Kind(type: .sample, machine: bike.name, payload: MetricsPayloads.sample(record, session: nil)),
            Kind(type: .status, machine: bike.name, payload: MetricsPayloads.decoded(.status(FitnessMachineStatus(opCode: .stoppedOrPausedByUser, parameters: [1])))),
            Kind(type: .control, machine: bike.name, payload: MetricsPayloads.control(
                operation: "set_target_power", request: [0x05, 0xC8, 0x00], result: "success", succeeded: true, origin: "control socket")),
            Kind(type: .sessionSummary, machine: bike.name, session: summary.sessionID, payload: MetricsPayloads.summary(summary)),
            Kind(type: .upload, payload: MetricsPayloads.upload(pending: 3, uploaded: 12, dead: 1, result: "ok")),
            Kind(type: .other("future_type"), machine: "SF-Rower-0002", payload: payload(#"{"x":[1,{"y":null}],"\u00e9":"\ud83d\ude00"}"#)),
        ]
    }

    /// The header the writer owes each line, written out by hand: the known answer.
    static func header(_ type: String, machine: String?, session: String?, seq: UInt64) -> String {
        #"{"type":"\#(type)","machine":\#(machine.map { "\"\($0)\"" } ?? "null"),"sessionId":\#(session.map { "\"\($0)\"" } ?? "null"),"#
            + #""timestamp":1763712000.123,"seq":\#(seq),"version":"1.0","payload":"#
    }

    @Test func everyKindRoundTripsThroughTheWriterAndTheReader() async throws {
        let kinds = try Self.kinds()
        let time = try #require(Self.time)
        try await withServer { fixture in
            let reader = try await fixture.connect()
            let helloLine = try await reader.line()
            #expect(helloLine == EnvelopeTests.emptyHello)
            let hello = try MetricsMessage(line: Array(helloLine.utf8))
            #expect(hello.envelope == Envelope(type: .hello, machine: nil, sessionID: nil, timestamp: time, seq: 0))
            #expect(hello.payload["daemonVersion"] == .string(ServerFixture.version))

            for (index, kind) in kinds.enumerated() {
                let seq = UInt64(index + 1)
                try await fixture.server.publish(kind.type, machine: kind.machine, sessionID: kind.session, payload: kind.payload)
                let line = try await reader.line()
                let payloadText = String(decoding: kind.payload.bytes, as: UTF8.self)
                #expect(line == Self.header(kind.type.rawValue, machine: kind.machine, session: kind.session, seq: seq) + payloadText + "}")

                let message = try MetricsMessage(line: Array(line.utf8))
                #expect(message.envelope == Envelope(type: kind.type, machine: kind.machine, sessionID: kind.session, timestamp: time, seq: seq))
                #expect(JSONValue.object(message.payload) == (try JSONReader.read(kind.payload.bytes)))
            }

            // The reader-local `error`, written to this reader alone before it is closed.
            try await reader.send("nonsense\n")
            let error = try MetricsMessage(line: Array(try await reader.line().utf8))
            #expect(error.envelope == Envelope(type: .error, machine: nil, sessionID: nil, timestamp: time, seq: UInt64(kinds.count)))
            #expect(error.payload["message"]?.string?.isEmpty == false)
        }
    }

    /// A `hello` after state was kept: its `machines` and `sessions` entries are envelopes too.
    @Test func helloEntriesReadAsEnvelopes() async throws {
        let kinds = try Self.kinds()
        try await withServer { fixture in
            for kind in kinds.prefix(2) {
                try await fixture.server.publish(kind.type, machine: kind.machine, sessionID: kind.session, payload: kind.payload)
            }
            let (_, helloLine) = try await fixture.connectPastHello()
            let hello = try MetricsMessage(line: Array(helloLine.utf8))
            let machines = try (hello.payload["machines"]?.array ?? []).map { try MetricsMessage(json: $0) }
            #expect(machines.map(\.envelope.type) == [.machine] && machines.first?.envelope.seq == 1)
            #expect(machines.first?.payload["state"] == "ready")
        }
    }

    /// docs/metrics-socket.md's example line, read field by field.
    @Test func theDocumentedLineReads() throws {
        let line = #"{"type":"sample","machine":"SF-Bike-0001","sessionId":"5b0c7e1e-2d7c-4f5e-9a57-1d1e1f1a2b3c","timestamp":1763712000.123,"seq":1042,"version":"1.0","payload":{"characteristic":"indoor_bike_data","uuid":"2ad2","flags":580,"more_data":false,"instantaneous_speed_kmh":31.4,"instantaneous_cadence_rpm":88,"instantaneous_power_w":212}}"#
        let message = try MetricsMessage(line: Array(line.utf8))
        #expect(message.envelope.type == .sample && message.envelope.machine == "SF-Bike-0001")
        #expect(message.envelope.sessionID == "5b0c7e1e-2d7c-4f5e-9a57-1d1e1f1a2b3c")
        #expect(message.envelope.timestamp.value == 1_763_712_000_123 && message.envelope.timestamp.seconds == 1_763_712_000.123)
        #expect(message.envelope.seq == 1042)
        #expect(message.payload["instantaneous_power_w"] == 212)
        // A `\r\n` reader's line and a newer minor version read the same; unknown keys are skipped.
        let later = line.replacingOccurrences(of: #""version":"1.0""#, with: #""version":"1.7","extra":[true]"#)
        let newer = try MetricsMessage(line: Array(later.utf8))
        #expect(newer.envelope == message.envelope && newer.payload == message.payload)
        #expect(message.version == "1.0" && newer.version == "1.7")
    }

    // Moved with the reader from the dashboard's tests.
    @Test(arguments: ["", "not json", "[1,2]", #"{"type":"sample"}"#, #"{"payload":{}}"#, #"{"type":"x","payload":3}"#, "{\"type\":\"x\",\"payload\":{\u{0}}"])
    func garbageIsRefusedWithAReason(line: String) {
        #expect(throws: EnvelopeError.self) { try MetricsMessage(line: Array(line.utf8)) }
    }

    static let good = #"{"type":"sample","machine":null,"sessionId":null,"timestamp":1763712000.123,"seq":7,"version":"1.0","payload":{}}"#

    /// Each refusal names the key and what is wrong with it.
    @Test(arguments: [
        (#""seq":7"#, #""seq":-1"#, EnvelopeError.field("seq", problem: "is a number, not a whole number from 0")),
        (#""seq":7"#, #""seq":7.5"#, .field("seq", problem: "is a number, not a whole number from 0")),
        (#""seq":7,"#, "", .field("seq", problem: "is missing")),
        (#""version":"1.0""#, #""version":"2.0""#, .field("version", problem: #"is "2.0", not a 1.x this reader knows"#)),
        (#""version":"1.0""#, #""version":1"#, .field("version", problem: "is a number, not a string")),
        (#""timestamp":1763712000.123"#, #""timestamp":-5"#, .field("timestamp", problem: "is -5.0, not a time since 1970 in Unix seconds")),
        (#""timestamp":1763712000.123"#, #""timestamp":"now""#, .field("timestamp", problem: "is a string, not a number")),
        (#""machine":null"#, #""machine":3"#, .field("machine", problem: "is a number, not a string or null")),
        (#""type":"sample""#, #""type":null"#, .field("type", problem: "is null, not a string")),
        (#""payload":{}"#, #""payload":[]"#, .field("payload", problem: "is a list, not an object")),
        (#","payload":{}"#, "", .field("payload", problem: "is missing")),
    ])
    func refusalsNameTheKey(replacing: String, with replacement: String, error: EnvelopeError) {
        let line = Self.good.replacingOccurrences(of: replacing, with: replacement)
        #expect(throws: error) { try MetricsMessage(line: Array(line.utf8)) }
        #expect(error.description.hasPrefix("not a metrics-socket envelope: "))
    }

    /// Random bytes, every cut of a real line and random bytes written over one: each is an
    /// envelope or an ``EnvelopeError``, never a trap; and a cut line is never an envelope.
    @Test func noBytesTrapTheReader() throws {
        var random = SplitMix64(seed: 38)
        let lines = [Self.good, EnvelopeTests.emptyHello]
        for line in lines {
            let bytes = Array(line.utf8)
            for end in 0..<bytes.count {
                #expect(throws: EnvelopeError.self) { try MetricsMessage(line: bytes[..<end]) }
            }
        }
        var read = 0
        for round in 0..<20_000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = random.bytes(count: Int(random.next() % 200))
            } else {
                bytes = Array(lines[round / 2 % lines.count].utf8)
                for _ in 0...(random.next() % 4) {
                    bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
                }
            }
            do {
                _ = try MetricsMessage(line: bytes)
                read += 1
            } catch {
                #expect(!error.description.isEmpty)
            }
        }
        // Some mutations land in a string or a digit and leave an envelope: the reader is not
        // refusing everything.
        #expect(read > 0)
    }
}
