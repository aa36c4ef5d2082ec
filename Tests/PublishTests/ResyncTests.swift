import Publish
import Testing

/// contract §7's resync: a reader that connects late gets the current state in its `hello`.
@Suite("Resync")
struct ResyncTests {
    /// The `hello` payload's `machines` and `sessions` lists, as the raw text between brackets.
    static func list(_ name: String, in hello: String) -> String {
        guard let start = hello.firstRange(of: #""\#(name)":["#) else { return "<missing>" }
        var depth = 1
        var index = start.upperBound
        while index < hello.endIndex {
            switch hello[index] {
            case "[", "{": depth += 1
            case "]", "}": depth -= 1
            default: break
            }
            if depth == 0 { return String(hello[start.upperBound..<index]) }
            index = hello.index(after: index)
        }
        return "<unterminated>"
    }

    @Test func helloCarriesLatestMachinesAndOpenSessions() async throws {
        try await withServer { fixture in
            let (watcher, _) = try await fixture.connectPastHello()
            let server = fixture.server
            try await server.publish(.machine, machine: "SF-Rower-0002", payload: payload(#"{"state":"connecting"}"#))
            try await server.publish(.machine, machine: "SF-Bike-0001", payload: payload(#"{"state":"connecting"}"#))
            try await server.publish(.machine, machine: "SF-Bike-0001", payload: payload(#"{"state":"ready","model":"SF-B1"}"#))
            try await server.publish(.sessionState, machine: "SF-Bike-0001", sessionID: "s1", payload: payload(#"{"state":"started","startEpoch":1763712000,"elapsedMs":0}"#))
            try await server.publish(.sample, machine: "SF-Bike-0001", sessionID: "s1", payload: payload(#"{"instantaneous_power_w":150}"#))
            try await server.publish(.sessionState, machine: "SF-Bike-0001", sessionID: "s1", payload: payload(#"{"state":"paused","startEpoch":1763712000,"elapsedMs":5000}"#))
            try await server.publish(.sessionState, machine: "SF-Rower-0002", sessionID: "r1", payload: payload(#"{"state":"started","startEpoch":1763712003,"elapsedMs":0}"#))
            let published = try await watcher.lines(7)

            let (_, hello) = try await fixture.connectPastHello()
            #expect(seq(hello) == 7)
            #expect(hello.contains(#""lastSeq":7,"#))
            // Whole envelopes, exactly as published, in machine order.
            #expect(Self.list("machines", in: hello) == published[2] + "," + published[0])
            #expect(Self.list("sessions", in: hello) == published[5] + "," + published[6])

            // Finishing the bike's session takes it out; the rower's stays.
            try await server.publish(.sessionState, machine: "SF-Bike-0001", sessionID: "s1", payload: payload(#"{"state":"finished","startEpoch":1763712000,"elapsedMs":9000}"#))
            let (_, after) = try await fixture.connectPastHello()
            #expect(seq(after) == 8)
            #expect(Self.list("sessions", in: after) == published[6])
            #expect(Self.list("machines", in: after) == published[2] + "," + published[0])
        }
    }

    /// A late `finished` for an older session does not hide the machine's newer one.
    @Test func finishingAnotherSessionKeepsTheOpenOne() async throws {
        try await withServer { fixture in
            let server = fixture.server
            try await server.publish(.sessionState, machine: "SF-Bike-0001", sessionID: "new", payload: payload(#"{"state":"started"}"#))
            try await server.publish(.sessionState, machine: "SF-Bike-0001", sessionID: "old", payload: payload(#"{"state":"finished"}"#))
            let (_, hello) = try await fixture.connectPastHello()
            #expect(Self.list("sessions", in: hello).contains(#""sessionId":"new""#))
        }
    }

    /// `hello` repeats the last `seq` rather than taking one: a reader connecting mid-stream
    /// continues at `hello.seq + 1`, and readers already connected see no gap.
    @Test func helloDoesNotConsumeASeq() async throws {
        try await withServer { fixture in
            let (early, _) = try await fixture.connectPastHello()
            for _ in 0..<3 { try await fixture.server.publish(.sample, machine: "m", payload: .empty) }
            let (late, hello) = try await fixture.connectPastHello()
            #expect(seq(hello) == 3)
            try await fixture.server.publish(.sample, machine: "m", payload: .empty)
            #expect(seq(try await late.line()) == 4)
            #expect(try await early.lines(4).map(seq) == [1, 2, 3, 4])
        }
    }
}
