import Publish
import Synchronization
import Testing

/// `publish` makes a `sample` or `status` payload only for a reader whose watch takes it or
/// for a second transport that forwards it, and the message still takes its `seq` when nobody
/// does.
@Suite("LazyPublish")
struct LazyPublishTests {
    /// Counts how often a payload was made.
    final class Builds: Sendable {
        private let count = Mutex(0)
        var value: Int { count.withLock { $0 } }

        /// Counted when it runs, which `publish`'s lazy argument does only when needed.
        func payload(_ text: String) -> JSONPayload {
            count.withLock { $0 += 1 }
            return PublishTests.payload(text)
        }
    }

    @Test func nothingIsEncodedWithoutAReaderButSeqStillCounts() async throws {
        try await withServer { fixture in
            let builds = Builds()
            for expected in UInt64(1)...3 {
                let result = try await fixture.server.publish(.sample, machine: "SF-Bike-0001", payload: builds.payload(#"{"power":1}"#))
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
            try await fixture.server.publish(.sample, machine: "SF-Bike-0001", payload: builds.payload(#"{"power":1}"#))
            #expect(builds.value == 0)
            let rower = try await fixture.server.publish(.sample, machine: "SF-Rower-0002", payload: builds.payload(#"{"stroke_rate":22}"#))
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
            let result = try await fixture.server.publish(.status, machine: "SF-Bike-0001", forwarding: true, payload: builds.payload(#"{"event":"started"}"#))
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
            try await fixture.server.publish(.machine, machine: "SF-Bike-0001", payload: builds.payload(#"{"state":"ready"}"#))
            #expect(builds.value == 1)
            let (_, hello) = try await fixture.connectPastHello()
            #expect(hello.contains(#""state":"ready""#))
        }
    }

    /// From the server's own loop (the daemon's workers run there) the message is published
    /// there and then, numbered in line with callers elsewhere, encoded only for a reader, and
    /// a reader-local type is refused the same way.
    @Test func onTheLoopItPublishesInLine() async throws {
        try await withServer { fixture in
            let builds = Builds()
            let server = fixture.server
            let onLoop = LoopCaller(server: server)
            let unread = try await onLoop.publish(.sample, builds.payload(#"{"power":1}"#))
            #expect(unread.seq == 1)
            #expect(unread.envelope == nil)
            #expect(builds.value == 0)
            let (reader, _) = try await fixture.connectPastHello()
            try await server.publish(.sample, machine: "SF-Bike-0001", payload: builds.payload(#"{"power":2}"#))
            let read = try await onLoop.publish(.status, builds.payload(#"{"event":"started"}"#), forwarding: true)
            #expect(read.seq == 3)
            #expect(builds.value == 2)
            #expect(try await reader.line().contains(#""seq":2,"#))
            let line = try await reader.line()
            #expect(line.contains(#""seq":3,"#))
            #expect(read.envelope.map { String(decoding: $0, as: UTF8.self) } == line)
            await #expect(throws: PublishError.readerLocalType(.hello)) { try await onLoop.publish(.hello, builds.payload("{}")) }
            #expect(await server.lastSeq == 3)
        }
    }

    /// An actor on the server's event loop, as the daemon's workers are.
    actor LoopCaller {
        let server: MetricsServer
        private let executor: any SerialExecutor
        nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

        init(server: MetricsServer) {
            self.server = server
            executor = server.eventLoop.executor
        }

        func publish(_ type: MessageType, _ payload: @autoclosure @Sendable () -> JSONPayload, forwarding: Bool = false) async throws -> PublishedLine {
            #expect(server.eventLoop.inEventLoop)
            return try await server.publish(type, machine: "SF-Bike-0001", forwarding: forwarding, payload: payload())
        }
    }

    @Test func readerLocalTypesAreRefused() async throws {
        try await withServer { fixture in
            let builds = Builds()
            await #expect(throws: PublishError.readerLocalType(.hello)) {
                try await fixture.server.publish(.hello, payload: builds.payload("{}"))
            }
            #expect(builds.value == 0)
            #expect(await fixture.server.lastSeq == 0)
        }
    }
}
