import Publish
import Synchronization
import Testing

/// `publishIfRead`: a `sample` or `status` is encoded only for a reader whose watch takes it
/// or for a second transport that forwards it, and still takes its `seq` when nobody does.
@Suite("LazyPublish")
struct LazyPublishTests {
    /// Counts how often a payload was made.
    final class Builds: Sendable {
        private let count = Mutex(0)
        var value: Int { count.withLock { $0 } }

        func payload(_ text: String) -> @Sendable () -> JSONPayload {
            { [self] in
                count.withLock { $0 += 1 }
                return (try? JSONPayload(validating: text)) ?? .empty
            }
        }
    }

    @Test func nothingIsEncodedWithoutAReaderButSeqStillCounts() async throws {
        try await withServer { fixture in
            let builds = Builds()
            for expected in UInt64(1)...3 {
                let result = try await fixture.server.publishIfRead(.sample, machine: "SF-Bike-0001", payload: builds.payload(#"{"power":1}"#))
                #expect(result.seq == expected)
                #expect(result.envelope == nil)
            }
            #expect(builds.value == 0)
            #expect(await fixture.server.lastSeq == 3)
            #expect(await fixture.server.metrics.messagesPublished == 3)
        }
    }

    @Test func onlyAWatchingReaderCausesOneEncoding() async throws {
        try await withServer { fixture in
            let builds = Builds()
            let (reader, _) = try await fixture.connectPastHello()
            try await reader.send(#"{"watch":{"machines":["SF-Rower-0002"]}}"# + "\n")
            _ = try await reader.line()
            // The reader does not watch the bike: not encoded.
            try await fixture.server.publishIfRead(.sample, machine: "SF-Bike-0001", payload: builds.payload(#"{"power":1}"#))
            #expect(builds.value == 0)
            let rower = try await fixture.server.publishIfRead(.sample, machine: "SF-Rower-0002", payload: builds.payload(#"{"stroke_rate":22}"#))
            #expect(builds.value == 1)
            #expect(rower.seq == 2)
            let line = try await reader.line()
            #expect(line.hasPrefix(#"{"type":"sample","machine":"SF-Rower-0002","#))
            #expect(line.contains(#""seq":2,"#))
            #expect(line.hasSuffix(#""payload":{"stroke_rate":22}}"#))
        }
    }

    @Test func aForwardedMessageIsEncodedOnceAndItsEnvelopeReturned() async throws {
        try await withServer { fixture in
            let builds = Builds()
            let (reader, _) = try await fixture.connectPastHello()
            let result = try await fixture.server.publishIfRead(.status, machine: "SF-Bike-0001", forwarding: true, payload: builds.payload(#"{"event":"started"}"#))
            #expect(builds.value == 1)
            let line = try await reader.line()
            #expect(result.envelope.map { String(decoding: $0, as: UTF8.self) } == line)
        }
    }

    /// A `machine` line is kept for readers that connect later, so it is made with nobody
    /// connected.
    @Test func resyncTypesAreAlwaysEncoded() async throws {
        try await withServer { fixture in
            let builds = Builds()
            try await fixture.server.publishIfRead(.machine, machine: "SF-Bike-0001", payload: builds.payload(#"{"state":"ready"}"#))
            #expect(builds.value == 1)
            let (_, hello) = try await fixture.connectPastHello()
            #expect(hello.contains(#""state":"ready""#))
        }
    }

    /// On the server's loop the message is published there and then, numbered in line with
    /// the awaited calls and encoded only for a reader; off the loop nothing is done.
    @Test func onTheLoopItPublishesWithoutAHop() async throws {
        try await withServer { fixture in
            let builds = Builds()
            let server = fixture.server
            #expect(server.publishIfReadOnLoop(.sample, machine: "SF-Bike-0001", payload: builds.payload(#"{"power":1}"#)) == nil)
            #expect(await server.lastSeq == 0)
            let unread = try await server.eventLoop.submit {
                try server.publishIfReadOnLoop(.sample, machine: "SF-Bike-0001", payload: builds.payload(#"{"power":1}"#))?.get()
            }.get()
            #expect(unread?.seq == 1)
            #expect(unread?.envelope == nil)
            #expect(builds.value == 0)
            let (reader, _) = try await fixture.connectPastHello()
            try await server.publishIfRead(.sample, machine: "SF-Bike-0001", payload: builds.payload(#"{"power":2}"#))
            let read = try await server.eventLoop.submit {
                try server.publishIfReadOnLoop(.status, machine: "SF-Bike-0001", forwarding: true, payload: builds.payload(#"{"event":"started"}"#))?.get()
            }.get()
            #expect(read?.seq == 3)
            #expect(builds.value == 2)
            #expect(try await reader.line().contains(#""seq":2,"#))
            let line = try await reader.line()
            #expect(line.contains(#""seq":3,"#))
            #expect(read?.envelope.map { String(decoding: $0, as: UTF8.self) } == line)
            let refused = try await server.eventLoop.submit {
                server.publishIfReadOnLoop(.hello, payload: builds.payload("{}"))
            }.get()
            #expect(throws: PublishError.readerLocalType(.hello)) { try refused?.get() }
            #expect(await server.lastSeq == 3)
        }
    }

    @Test func readerLocalTypesAreRefused() async throws {
        try await withServer { fixture in
            let builds = Builds()
            await #expect(throws: PublishError.readerLocalType(.hello)) {
                try await fixture.server.publishIfRead(.hello, payload: builds.payload("{}"))
            }
            #expect(builds.value == 0)
            #expect(await fixture.server.lastSeq == 0)
        }
    }
}
