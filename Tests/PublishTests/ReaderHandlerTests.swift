import LocalSocket
import NIOCore
import NIOEmbedded
@testable import Publish
import Synchronization
import Testing

/// One metrics-socket reader's handler on a testing channel, behind the socket's framer, with
/// a registry that records what the handler tells it: what the reader's input becomes, and
/// what the reader is sent, loses or is closed for.
@Suite("Reader handler")
struct ReaderHandlerTests {
    final class Registry: ReaderRegistry {
        let eventLoop: any EventLoop
        let events = Mutex<[String]>([])
        let reader = Mutex<NIOLoopBound<ReaderHandler>?>(nil)

        init(eventLoop: any EventLoop) {
            self.eventLoop = eventLoop
        }

        func attach(_ reader: NIOLoopBound<ReaderHandler>) {
            events.withLock { $0.append("attach") }
            self.reader.withLock { $0 = reader }
            reader.value.send(ByteBuffer(string: "hello\n"))
        }

        func detach(_ reader: NIOLoopBound<ReaderHandler>) {
            events.withLock { $0.append("detach") }
        }

        func watch(_ filter: WatchFilter, for reader: NIOLoopBound<ReaderHandler>) {
            let bike = filter.accepts(.sample, machine: "SF-Bike-0001"), rower = filter.accepts(.sample, machine: "SF-Rower-0002")
            events.withLock { $0.append("watch bike \(bike) rower \(rower)") }
            reader.value.setFilter(filter)
        }

        func reject(_ reader: NIOLoopBound<ReaderHandler>, for error: any Error) {
            events.withLock { $0.append("reject \(error)") }
            reader.value.close(after: ByteBuffer(string: "error\n"))
        }
    }

    /// A connected reader's channel and its registry.
    static func reader(limits: ReaderLimits = ReaderLimits()) async throws -> (NIOAsyncTestingChannel, Registry) {
        let channel = NIOAsyncTestingChannel()
        let registry = Registry(eventLoop: channel.eventLoop)
        try await channel.testingEventLoop.executeInContext {
            try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineFramer(limit: MetricsServerConfiguration.maximumLineLength)))
            try channel.pipeline.syncOperations.addHandler(ReaderHandler(registry: registry, limits: limits))
        }
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).get()
        return (channel, registry)
    }

    static func written(_ channel: NIOAsyncTestingChannel) async throws -> [String] {
        var lines: [String] = []
        while let buffer = try await channel.readOutbound(as: ByteBuffer.self) { lines.append(String(buffer: buffer)) }
        return lines
    }

    /// Offers a line as the server's fan-out does, on the loop.
    static func offer(_ text: String, _ type: MessageType, machine: String?, to registry: Registry) async throws -> String {
        let line = ByteBuffer(string: text)
        return try await registry.eventLoop.submit {
            guard let reader = registry.reader.withLock({ $0 }) else { return "no reader" }
            return "\(reader.value.offer(line, type: type, machine: machine))"
        }.get()
    }

    @Test func aReaderIsAttachedAndGreetedThenWatchesThenIsDetached() async throws {
        let (channel, registry) = try await Self.reader()
        #expect(try await Self.written(channel) == ["hello\n"])
        try await channel.writeInbound(ByteBuffer(string: #"{"watch":{"machines":["SF-Bike"#))
        try await channel.writeInbound(ByteBuffer(string: "-0001\"]}}\r\n"))
        #expect(try await Self.offer("a\n", .sample, machine: "SF-Rower-0002", to: registry) == "skipped")
        #expect(try await Self.offer("b\n", .sample, machine: "SF-Bike-0001", to: registry) == "written")
        #expect(try await Self.written(channel) == ["b\n"])
        try await channel.close()
        #expect(registry.events.withLock { $0 } == ["attach", "watch bike true rower false", "detach"])
    }

    /// A reader that shuts down its sending side still wants the stream; a last watch line
    /// without its newline still counts.
    @Test func halfClosureKeepsTheStreamAndTakesTheLastLine() async throws {
        let (channel, registry) = try await Self.reader()
        try await channel.writeInbound(ByteBuffer(string: #"{"watch":{"types":["machine"]}}"#))
        channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        await channel.testingEventLoop.run()
        #expect(channel.isActive)
        #expect(registry.events.withLock { $0 } == ["attach", "watch bike false rower false"])
        try await channel.close()
    }

    @Test(arguments: [
        ("nope\n", "reject not JSON"),
        (String(repeating: "x", count: MetricsServerConfiguration.maximumLineLength + 1), "reject line longer than 4096 bytes"),
    ])
    func anythingButAWatchIsRejectedOnceAndClosed(input: String, event: String) async throws {
        let (channel, registry) = try await Self.reader()
        _ = try await Self.written(channel)
        _ = try? await channel.writeInbound(ByteBuffer(string: input))
        _ = try? await channel.writeInbound(ByteBuffer(string: "more\n"))
        await channel.testingEventLoop.run()
        #expect(try await Self.written(channel) == ["error\n"])
        #expect(!channel.isActive)
        let events = registry.events.withLock { $0 }
        #expect(events.count == 3 && events[1].hasPrefix(event) && events[2] == "detach", "\(events)")
    }

    /// Behind (the channel not writable): a sample is dropped, a state change still written.
    /// A line that cannot be dropped and does not fit under the hard limit closes the reader.
    @Test func aReaderBehindLosesSamplesThenIsClosed() async throws {
        let (channel, registry) = try await Self.reader(limits: ReaderLimits(soft: 8, hard: 16))
        _ = try await Self.written(channel)
        channel.isWritable = false
        #expect(try await Self.offer("sample\n", .sample, machine: "m", to: registry) == "dropped")
        #expect(try await Self.offer("state\n", .machine, machine: "m", to: registry) == "written")
        #expect(try await Self.written(channel) == ["state\n"])
        #expect(try await Self.offer(String(repeating: "s", count: 20) + "\n", .machine, machine: "m", to: registry) == "disconnected")
        await channel.testingEventLoop.run()
        #expect(!channel.isActive)
    }
}
