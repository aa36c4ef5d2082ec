import DeterministicRandom
import Publish
import Testing

/// Anything a reader sends other than a watch closes that reader, and only that reader, after
/// an `error` line; nothing a reader sends can trap the daemon.
@Suite("Reader input")
struct InputTests {
    /// Sends `bytes` from one reader while another watches; returns the error line.
    static func rejected(_ bytes: [UInt8]) async throws -> String {
        try await withServer { fixture in
            let (bystander, _) = try await fixture.connectPastHello()
            let (reader, _) = try await fixture.connectPastHello()
            try await fixture.server.publish(.sample, machine: "m", payload: .empty)
            _ = try await reader.line()
            try? await reader.send(bytes)
            let error = try await reader.line()
            try await reader.waitClosed()
            #expect(reader.unread.isEmpty)

            // The bystander is untouched and the server still publishes to it.
            try await fixture.server.publish(.sample, machine: "m", payload: .empty)
            #expect(try await bystander.lines(2).map(seq) == [1, 2])
            let metrics = await fixture.server.metrics
            #expect(metrics.readersDisconnectedBadInput == 1)
            #expect(metrics.readersConnected == 1)
            // error lines carry the current seq, like hello, without taking one.
            #expect(seq(error) == 1)
            return error
        }
    }

    static func message(_ error: String) -> String {
        #expect(error.hasPrefix(#"{"type":"error","machine":null,"sessionId":null,"timestamp":1763712000.123,"seq":"#))
        #expect(error.contains(#","version":"1.0","payload":{"message":""#))
        guard let start = error.firstRange(of: #""message":""#) else { return "" }
        return String(error[start.upperBound...].dropLast(3))
    }

    /// What locked the control socket does not lock this one: readers that hold half a watch
    /// line (each at most a line's limit, 4 KiB) are kept waiting for its end, and a reader
    /// arriving after a hundred of them gets its hello and the stream.
    @Test func readersHoldingHalfALineDoNotKeepOthersOut() async throws {
        // Room for them all: the cap on readers is another test's (ReaderCapTests).
        try await withServer(limits: ReaderLimits(readers: 128)) { fixture in
            var squatters: [TestReader] = []
            for _ in 0..<100 {
                let (reader, _) = try await fixture.connectPastHello()
                try await reader.send(#"{"watch":{"machines":["#)
                squatters.append(reader)
            }
            let (reader, _) = try await fixture.connectPastHello()
            try await fixture.server.publish(.sample, machine: "m", payload: .empty)
            #expect(seq(try await reader.line()) == 1)
            #expect(await fixture.server.metrics.readersConnected == 101)
            for squatter in squatters { await squatter.close() }
        }
    }

    @Test func garbage() async throws {
        let error = try await Self.rejected(Array("hello there\n".utf8))
        #expect(Self.message(error) == "not JSON: unexpected character at byte 0")
    }

    @Test func oversizedLineWithoutNewline() async throws {
        let error = try await Self.rejected([UInt8](repeating: UInt8(ascii: "x"), count: 5000))
        #expect(Self.message(error) == "line longer than 4096 bytes")
    }

    /// 4096 bytes is allowed, 4097 is not, newline or not.
    @Test func lineLimitIsExact() async throws {
        let padding = String(repeating: " ", count: 4096 - #"{"watch":{}}"#.utf8.count)
        try await withServer { fixture in
            let (reader, _) = try await fixture.connectPastHello()
            try await reader.send(#"{"watch":{}}"# + padding + "\n")
            #expect(try await reader.line().hasPrefix(#"{"type":"hello""#))
            try await reader.send(#"{"watch":{}}"# + padding + " \n")
            #expect(Self.message(try await reader.line()).hasPrefix("line longer than 4096 bytes"))
            try await reader.waitClosed()
        }
    }

    @Test func invalidUTF8() async throws {
        let error = try await Self.rejected([UInt8(ascii: "{"), 0xFF, 0xFE, UInt8(ascii: "}"), 0x0A])
        #expect(Self.message(error) == "not JSON: expected a key in quotes at byte 1")
    }

    @Test(arguments: [
        (#"{"watch":{"machine":["x"]}}"#, #"unknown request: unknown key \"machine\" in \"watch\""#),
        (#"{"poll":true}"#, #"unknown request: expected the single key \"watch\""#),
        (#"{"watch":{"types":"sample"}}"#, #"unknown request: \"types\" is not a list"#),
        (#"{"watch":{"types":[1]}}"#, #"unknown request: \"types\" holds a non-string"#),
        (#"{"watch":{"types":[],"types":[]}}"#, #"unknown request: duplicate key \"types\""#),
        (#"["watch"]"#, "unknown request: not an object"),
        (#"{"watch":{}} {}"#, "not JSON: more after the value at byte 13"),
    ])
    func unknownShapes(line: String, expected: String) async throws {
        let error = try await Self.rejected(Array((line + "\n").utf8))
        #expect(Self.message(error).hasPrefix(expected))
    }

    /// Random bytes from many readers at once: each is closed or (rarely) valid, the server
    /// keeps serving, and a well-behaved reader sees every message.
    @Test func randomBytesNeverHurtTheServer() async throws {
        var generator = SplitMix64(seed: 0x5EED)
        try await withServer { fixture in
            let (bystander, _) = try await fixture.connectPastHello()
            var readers: [TestReader] = []
            for _ in 0..<40 {
                let (reader, _) = try await fixture.connectPastHello()
                let count = Int(generator.next() % 6000) + 1
                var bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
                bytes.append(0x0A)
                try? await reader.send(bytes)
                readers.append(reader)
            }
            for reader in readers { try await reader.waitClosed() }
            try await fixture.server.publish(.sample, machine: "m", payload: .empty)
            #expect(seq(try await bystander.line()) == 1)
            let metrics = await fixture.server.metrics
            #expect(metrics.readersDisconnectedBadInput == 40)
            #expect(metrics.readersConnected == 1)
        }
    }

    /// A reader that shuts down its sending side still receives the stream.
    @Test func halfClosedReaderKeepsReading() async throws {
        try await withServer { fixture in
            let (reader, _) = try await fixture.connectPastHello()
            try await reader.channel.close(mode: .output)
            try await Task.sleep(for: .milliseconds(20))
            try await fixture.server.publish(.sample, machine: "m", payload: .empty)
            #expect(seq(try await reader.line()) == 1)
            #expect(await fixture.server.metrics.readersConnected == 1)
        }
    }
}


/// `metrics_socket.max_clients`: readers past the cap are told why and closed; a place that
/// frees up takes the next reader.
@Suite("Publish: the reader cap")
struct ReaderCapTests {
    @Test func aReaderPastTheCapIsToldAndClosedAndAFreedPlaceIsTaken() async throws {
        try await withServer(limits: ReaderLimits(readers: 2)) { fixture in
            let (first, _) = try await fixture.connectPastHello()
            let (second, _) = try await fixture.connectPastHello()
            let third = try await fixture.connect()
            let refusal = try await third.line()
            #expect(refusal.contains(#""type":"error""#) && refusal.contains("has its 2 readers (metrics_socket.max_clients)"), "\(refusal)")
            try await third.waitClosed()
            // The two readers still get every message.
            try await fixture.server.publish(.status, machine: "SF-Bike-0001", payload: payload(#"{"state":"ready"}"#))
            #expect(try await first.line().contains("SF-Bike-0001"))
            #expect(try await second.line().contains("SF-Bike-0001"))
            await first.close()
            // Its place is free once the server has seen the close.
            var hello = ""
            for _ in 0..<600 where !hello.contains(#""type":"hello""#) {
                let next = try await fixture.connect()
                hello = try await next.line()
                if !hello.contains(#""type":"hello""#) { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(hello.contains(#""type":"hello""#), "\(hello)")
            let metrics = await fixture.server.metrics
            #expect(metrics.readersRefusedFull >= 1 && metrics.readersConnected == 2, "\(metrics)")
        }
    }
}
