import Publish
import Testing

/// `{"watch": {"machines": [...], "types": [...]}}` narrows one reader's stream.
@Suite("Watch")
struct WatchTests {
    /// Publishes one message of a few kinds and returns the `seq`s in order.
    static func publishMix(_ server: MetricsServer) async throws -> [String: UInt64] {
        [
            "bike sample": try await server.publish(.sample, machine: "SF-Bike-0001", payload: .empty).seq,
            "rower sample": try await server.publish(.sample, machine: "SF-Rower-0002", payload: .empty).seq,
            "bike state": try await server.publish(.sessionState, machine: "SF-Bike-0001", sessionID: "s", payload: payload(#"{"state":"started"}"#)).seq,
            "upload": try await server.publish(.upload, payload: payload(#"{"queue_depth":0}"#)).seq,
            "rower status": try await server.publish(.status, machine: "SF-Rower-0002", payload: .empty).seq,
        ]
    }

    /// Sends `watch`, reads the filtered `hello` that confirms it, publishes the mix, and
    /// returns the `seq`s the reader received.
    static func received(watch: String) async throws -> (hello: String, seqs: [UInt64], sent: [String: UInt64]) {
        try await withServer { fixture in
            let (reader, _) = try await fixture.connectPastHello()
            try await reader.send(watch + "\n")
            let hello = try await reader.line()
            let sent = try await publishMix(fixture.server)
            // A second watch: its hello comes after everything published so far, so it marks the end.
            try await reader.send(#"{"watch":{}}"# + "\n")
            var seqs: [UInt64] = []
            while true {
                let line = try await reader.line()
                if line.hasPrefix(#"{"type":"hello""#) { break }
                seqs.append(seq(line))
            }
            return (hello, seqs, sent)
        }
    }

    @Test func byMachine() async throws {
        let (hello, seqs, sent) = try await Self.received(watch: #"{"watch": {"machines": ["SF-Bike-0001"]}}"#)
        #expect(hello.hasPrefix(#"{"type":"hello""#))
        #expect(hello.contains(#""watch":{"machines":["SF-Bike-0001"],"types":[]}"#))
        // The machine-less upload concerns every machine, so it passes a machine filter.
        #expect(seqs == [sent["bike sample"], sent["bike state"], sent["upload"]].compactMap { $0 })
    }

    @Test func byType() async throws {
        let (hello, seqs, sent) = try await Self.received(watch: #"{"watch": {"types": ["session_state", "status"]}}"#)
        #expect(hello.contains(#""watch":{"machines":[],"types":["session_state","status"]}"#))
        #expect(seqs == [sent["bike state"], sent["rower status"]].compactMap { $0 })
    }

    @Test func byBoth() async throws {
        let (_, seqs, sent) = try await Self.received(watch: #"{"watch": {"machines": ["SF-Rower-0002"], "types": ["sample", "upload"]}}"#)
        #expect(seqs == [sent["rower sample"], sent["upload"]].compactMap { $0 })
    }

    @Test(arguments: [#"{"watch": {}}"#, #"{"watch": null}"#, #"{"watch": {"machines": [], "types": null}}"#])
    func emptyOrMissingMeansAll(watch: String) async throws {
        let (hello, seqs, sent) = try await Self.received(watch: watch)
        #expect(hello.contains(#""watch":{"machines":[],"types":[]}"#))
        #expect(seqs == sent.values.sorted())
    }

    /// The confirming `hello` carries only the watched machines' state.
    @Test func helloIsFilteredToo() async throws {
        try await withServer { fixture in
            try await fixture.server.publish(.machine, machine: "SF-Bike-0001", payload: payload(#"{"state":"ready"}"#))
            try await fixture.server.publish(.machine, machine: "SF-Rower-0002", payload: payload(#"{"state":"ready"}"#))
            let (reader, hello) = try await fixture.connectPastHello()
            #expect(hello.contains("SF-Bike-0001") && hello.contains("SF-Rower-0002"))
            try await reader.send(#"{"watch":{"machines":["SF-Rower-0002"]}}"# + "\n")
            let filtered = try await reader.line()
            #expect(!ResyncTests.list("machines", in: filtered).contains("SF-Bike-0001"))
            #expect(ResyncTests.list("machines", in: filtered).contains("SF-Rower-0002"))
            #expect(seq(filtered) == 2)
        }
    }
}
