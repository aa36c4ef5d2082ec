import CivilTime
import Clocks
import MetricsClient
import NIOCore
import NIOPosix
import Publish
import RetryTiming
import Synchronization
import TestSupport
import Testing

/// The client against real Unix sockets: Publish's server that goes away and comes back, no
/// server at all, and a peer that sends what is not an envelope.
@Suite("MetricsSocketClient")
struct ReconnectTests {
    static let backoff = Backoff(initial: .milliseconds(20), maximum: .milliseconds(80))

    @Test func reconnectsWhenTheServerGoesAwayAndComesBack() async throws {
        try await withLoop { group, path in
            let first = try await Self.listen(path, on: group)
            let client = MetricsSocketClient(path: path, backoff: Self.backoff, group: group, random: { 1 })
            try await withClient(client) { events in
                try await events.wait(for: "the first hello") { $0.messages(.hello).count == 1 }
                let one = try JSONPayload(validating: #"{"instantaneous_power_w":1}"#)
                try await first.publish(.sample, machine: "SF-Bike-0001", payload: one)
                try await events.wait(for: "the first sample") { $0.messages(.sample).count == 1 }

                await first.close()
                try await events.wait(for: "the client to see no server") { $0.disconnections.contains { if case .cannotConnect = $0 { true } else { false } } }

                let second = try await Self.listen(path, on: group)
                try await events.wait(for: "the second hello") { $0.messages(.hello).count == 2 }
                let two = try JSONPayload(validating: #"{"instantaneous_power_w":2}"#)
                try await second.publish(.sample, machine: "SF-Bike-0001", payload: two)
                try await events.wait(for: "the second sample") { $0.messages(.sample).count == 2 }
                await second.close()

                let seen = events.all
                #expect(seen.first == .connected)
                #expect(seen.messages(.sample).map { $0.payload["instantaneous_power_w"] } == [1, 2])
                #expect(seen.messages(.sample).map(\.envelope.seq) == [1, 1], "a new daemon counts from 1 again")
                // The stream's end, then attempts that find no socket, then a connection again.
                let firstEnd = try #require(seen.firstIndex { if case .disconnected(.closed, _) = $0 { true } else { false } })
                let reconnected = try #require(seen[firstEnd...].firstIndex(of: .connected))
                #expect(seen[(firstEnd + 1)..<reconnected].allSatisfy { if case .disconnected(.cannotConnect, _) = $0 { true } else { false } })
                // A connection that worked starts the backoff over; each failure then steps it.
                var expected = Self.backoff
                let delays = seen[firstEnd..<reconnected].compactMap { if case .disconnected(_, let delay) = $0 { delay } else { nil } }
                #expect(delays == delays.map { _ in expected.next(random: 1) })
            }
        }
    }

    @Test func waitsRetryTimingsJitteredBackoffWhileNoServerListens() async throws {
        try await withLoop { group, path in
            let draws = Mutex([0.0, 0.5, 1.0, 0.25, 0.75])
            let client = MetricsSocketClient(path: path, backoff: Self.backoff, group: group, random: {
                draws.withLock { $0.isEmpty ? 0 : $0.removeFirst() }
            })
            try await withClient(client) { events in
                try await events.wait(for: "five attempts") { $0.count >= 5 }
                let seen = events.all.prefix(5)
                var expected = Self.backoff
                let want = [0.0, 0.5, 1.0, 0.25, 0.75].map { MetricsSocketEvent.disconnected(.cannotConnect("No such file or directory"), retryIn: expected.next(random: $0)) }
                #expect(Array(seen) == want)
            }
        }
    }

    @Test func sendsItsWatchAndReadsTheFilteredStream() async throws {
        try await withLoop { group, path in
            let server = try await Self.listen(path, on: group)
            let client = MetricsSocketClient(path: path, watch: WatchFilter(types: [.status]), backoff: Self.backoff, group: group)
            try await withClient(client) { events in
                try await events.wait(for: "the watch's hello") { $0.messages(.hello).count == 2 }
                try await server.publish(.sample, machine: "SF-Bike-0001", payload: .empty)
                try await server.publish(.status, machine: "SF-Bike-0001", payload: .empty)
                try await events.wait(for: "the status") { !$0.messages(.status).isEmpty }
                #expect(events.all.messages(.hello).last?.payload["watch"] == ["machines": [], "types": ["status"]])
                #expect(events.all.messages(.sample).isEmpty)
                #expect(events.all.messages(.status).map(\.envelope.seq) == [2])
            }
            await server.close()
        }
    }

    @Test func linesThatAreNotEnvelopesAreReportedAndTheStreamGoesOn() async throws {
        let good = #"{"type":"upload","machine":null,"sessionId":null,"timestamp":1763712000.123,"seq":4,"version":"1.0","payload":{"pending":0}}"#
        try await withLoop { group, path in
            let peer = try await RawPeer.listen(path, on: group, sending: "garbage\n\(good)\r\n{\"type\":\"x\"}\n")
            try await withClient(MetricsSocketClient(path: path, backoff: Self.backoff, group: group)) { events in
                try await events.wait(for: "three lines") { $0.count >= 4 }
                let seen = events.all
                guard seen.count >= 4, case .unreadable(let garbage, .notJSON) = seen[1], case .message(let message, let line) = seen[2],
                    case .unreadable(_, .field("timestamp", problem: "is missing")) = seen[3]
                else {
                    Issue.record("unexpected events: \(seen)")
                    return
                }
                #expect(seen[0] == .connected)
                #expect(String(buffer: garbage) == "garbage")
                #expect(String(buffer: line) == good)
                #expect(message.envelope.type == .upload && message.envelope.seq == 4)
            }
            try await peer.close().get()
        }
    }

    @Test func aLineOverTheLimitEndsTheConnection() async throws {
        try await withLoop { group, path in
            let peer = try await RawPeer.listen(path, on: group, sending: String(repeating: "x", count: 100))
            try await withClient(MetricsSocketClient(path: path, backoff: Self.backoff, lineLimit: 64, group: group)) { events in
                try await events.wait(for: "the end of the connection") { !$0.disconnections.isEmpty }
                #expect(events.all.disconnections.first == .failed("a line longer than 64 bytes"))
            }
            try await peer.close().get()
        }
    }

    /// A daemon whose readers are full says `error` and closes: that connection did not work,
    /// so the backoff keeps stepping instead of hammering it every first step.
    @Test func aDaemonThatRefusesAtOnceDoesNotStartTheBackoffOver() async throws {
        let refusal = #"{"type":"error","machine":null,"sessionId":null,"timestamp":1763712000.123,"seq":0,"version":"1.0","payload":{"message":"full"}}"#
        try await withLoop { group, path in
            let peer = try await RawPeer.listen(path, on: group, sending: refusal + "\n", thenClose: true)
            try await withClient(MetricsSocketClient(path: path, backoff: Self.backoff, group: group, random: { 1 })) { events in
                try await events.wait(for: "three refusals") { $0.disconnections.count >= 3 }
                let seen = events.all
                #expect(seen.messages(.error).count >= 3)
                #expect(seen.disconnections.prefix(3).allSatisfy { $0 == .closed })
                var expected = Self.backoff
                let delays = seen.compactMap { if case .disconnected(_, let delay) = $0 { delay } else { nil } }.prefix(3)
                #expect(Array(delays) == (0..<3).map { _ in expected.next(random: 1) })
            }
            try await peer.close().get()
        }
    }

    static func listen(_ path: String, on group: any EventLoopGroup) async throws -> MetricsServer {
        try await MetricsServer.listen(
            MetricsServerConfiguration(path: path, daemonVersion: "test"), on: group.next(), clock: .fixed(UTCTime(millisecondsSince1970: 1_763_712_000_123)))
    }
}

/// Every event a client delivered, in order.
final class EventLog: Sendable {
    private let events = Mutex<[MetricsSocketEvent]>([])

    func append(_ event: MetricsSocketEvent) {
        events.withLock { $0.append(event) }
    }

    var all: [MetricsSocketEvent] { events.withLock { $0 } }

    func wait(for what: String, _ condition: @escaping ([MetricsSocketEvent]) -> Bool) async throws {
        try await waitUntil(what) { condition(all) }
    }
}

extension Collection<MetricsSocketEvent> {
    func messages(_ type: MessageType) -> [MetricsMessage] {
        compactMap { if case .message(let message, _) = $0, message.envelope.type == type { message } else { nil } }
    }

    var disconnections: [MetricsSocketDisconnection] {
        compactMap { if case .disconnected(let reason, _) = $0 { reason } else { nil } }
    }
}

/// Runs `client` while `body` runs, its events in the log; the client is cancelled after.
func withClient(_ client: MetricsSocketClient, _ body: (EventLog) async throws -> Void) async throws {
    let log = EventLog()
    let task = Task { await client.run { log.append($0) } }
    do {
        try await body(log)
    } catch {
        task.cancel()
        await task.value
        throw error
    }
    task.cancel()
    await task.value
}

/// A one-thread event loop and a socket path in a fresh directory, both gone after `body`.
func withLoop(_ body: (MultiThreadedEventLoopGroup, String) async throws -> Void) async throws {
    let directory = try TemporaryDirectory()
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    do {
        try await body(group, directory.path + "/metrics.sock")
    } catch {
        try? await group.shutdownGracefully()
        throw error
    }
    try await group.shutdownGracefully()
}

/// A peer that is not the daemon: it sends `text` to each reader that connects and keeps it
/// open, or closes it (`thenClose`).
enum RawPeer {
    static func listen(_ path: String, on group: any EventLoopGroup, sending text: String, thenClose: Bool = false) async throws -> any Channel {
        try await ServerBootstrap(group: group)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Greeter(text: text, thenClose: thenClose)) }
            }
            .bind(unixDomainSocketPath: path)
            .get()
    }

    final class Greeter: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let text: String
        let thenClose: Bool

        init(text: String, thenClose: Bool) {
            self.text = text
            self.thenClose = thenClose
        }

        func channelActive(context: ChannelHandlerContext) {
            let written = context.writeAndFlush(NIOAny(ByteBuffer(string: text)))
            let channel = context.channel
            if thenClose { written.whenComplete { _ in channel.close(promise: nil) } }
        }
    }
}
