import CivilTime
import Clocks
import Publish
import Testing

/// The contract §7 envelope on the wire, byte for byte, against a fixed clock.
@Suite("Envelope")
struct EnvelopeTests {
    static let emptyHello =
        #"{"type":"hello","machine":null,"sessionId":null,"timestamp":1763712000.123,"seq":0,"version":"1.0","#
        + #""payload":{"daemonVersion":"ftms-bridge test","lastSeq":0,"machines":[],"sessions":[],"watch":{"machines":[],"types":[]}}}"#

    @Test func linesAreExactBytes() async throws {
        try await withServer { fixture in
            let reader = try await fixture.connect()
            #expect(try await reader.line() == Self.emptyHello)
            try await fixture.server.publish(.sample, machine: "SF-Bike-0001", sessionID: "5b0c7e1e-2d7c-4f5e-9a57-1d1e1f1a2b3c",
                                             payload: payload(#"{"instantaneous_cadence_rpm":85,"instantaneous_power_w":180}"#))
            try await fixture.server.publish(.upload, payload: payload(#" { "queue_depth": 3 } "#))
            let expected = Self.emptyHello + "\n"
                + #"{"type":"sample","machine":"SF-Bike-0001","sessionId":"5b0c7e1e-2d7c-4f5e-9a57-1d1e1f1a2b3c","timestamp":1763712000.123,"seq":1,"version":"1.0","payload":{"instantaneous_cadence_rpm":85,"instantaneous_power_w":180}}"#
                + "\n"
                + #"{"type":"upload","machine":null,"sessionId":null,"timestamp":1763712000.123,"seq":2,"version":"1.0","payload":{ "queue_depth": 3 }}"#
                + "\n"
            _ = try await reader.lines(2)
            #expect(String(decoding: reader.rawBytes, as: UTF8.self) == expected)
        }
    }

    /// Milliseconds, always three decimals; a broken clock (before 1970, past year 200000) gives 0.
    @Test(arguments: [
        (1_763_712_000_100 as Int64, "1763712000.100"),
        (1_763_712_000_000, "1763712000.000"),
        (1_763_712_000_001, "1763712000.001"),
        (1_763_712_000_999, "1763712000.999"),
        (0, "0.000"),
        (-5000, "0.000"),
        (6_300_000_000_000_000, "0.000"),
        (.min, "0.000"),
        (.max, "0.000"),
    ])
    func timestamps(milliseconds: Int64, text: String) async throws {
        try await withServer(clock: .fixed(UTCTime(millisecondsSince1970: milliseconds))) { fixture in
            let (_, hello) = try await fixture.connectPastHello()
            #expect(hello.contains(#""timestamp":\#(text),"seq":0,"#))
        }
    }

    @Test func seqCountsEveryPublishedMessageFromOne() async throws {
        try await withServer { fixture in
            let (reader, _) = try await fixture.connectPastHello()
            var returned: [UInt64] = []
            for type in [MessageType.machine, .sample, .status, .control, .sessionSummary, .upload, .other("future_type")] {
                returned.append(try await fixture.server.publish(type, machine: "SF-Rower-0002", payload: .empty).seq)
            }
            #expect(returned == Array(1...7))
            let lines = try await reader.lines(7)
            #expect(lines.map(seq) == Array(1...7))
            #expect(lines.last?.hasPrefix(#"{"type":"future_type","#) == true)
            #expect(await fixture.server.lastSeq == 7)
            #expect(await fixture.server.metrics.messagesPublished == 7)
        }
    }

    /// `hello` and `error` belong to single readers; publishing them would waste a `seq`.
    @Test func readerLocalTypesAreNotPublished() async throws {
        try await withServer { fixture in
            await #expect(throws: PublishError.readerLocalType(.hello)) {
                try await fixture.server.publish(.hello, payload: .empty)
            }
            await #expect(throws: PublishError.readerLocalType(.error)) {
                try await fixture.server.publish(MessageType(rawValue: "error"), payload: .empty)
            }
            #expect(await fixture.server.lastSeq == 0)
        }
    }

    @Test func typesAreOpenAndCompareByWireName() {
        #expect(MessageType(rawValue: "session_state") == .sessionState)
        #expect(MessageType.other("sample") == .sample)
        #expect(Set([MessageType.other("sample"), .sample]).count == 1)
        #expect(MessageType(rawValue: "heart_rate").rawValue == "heart_rate")
        #expect(MessageType.sessionSummary.rawValue == "session_summary")
    }
}

/// The `seq` of an envelope line, read by the envelope's one reader; 0 for a line that is not one.
func seq(_ line: String) -> UInt64 {
    (try? MetricsMessage(line: Array(line.utf8)))?.envelope.seq ?? 0
}
