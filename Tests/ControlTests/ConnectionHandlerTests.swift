@testable import Control
import LocalSocket
import NIOCore
import NIOEmbedded
import Testing

/// One control client's handler on a testing channel, behind the socket's framer: answers in
/// order, the idle timer on the loop's own clock (so a minute passes without a minute of
/// waiting), a line too long, half-closure, and the place a newcomer takes.
@Suite("Control connection handler")
struct ConnectionHandlerTests {
    static let configuration = ControlServerConfiguration(path: ServerFixture.replacedPath, idleTimeout: .seconds(60), maximumLineLength: 256)

    static func client(
        _ registry: ClientRegistry = ClientRegistry(capacity: 4), handler: any ControlHandler = EchoHandler()
    ) async throws -> NIOAsyncTestingChannel {
        let channel = NIOAsyncTestingChannel()
        try await channel.testingEventLoop.executeInContext {
            try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineFramer(limit: configuration.maximumLineLength)))
            try channel.pipeline.syncOperations.addHandler(ControlConnection(handler: handler, registry: registry, configuration: configuration))
        }
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).get()
        return channel
    }

    static func answer(_ channel: NIOAsyncTestingChannel) async throws -> String {
        String(buffer: try await channel.waitForOutboundWrite(as: ByteBuffer.self))
    }

    @Test func requestsCutAnyWayAreAnsweredInOrder() async throws {
        let channel = try await Self.client()
        try await channel.writeInbound(ByteBuffer(string: "{\"id\":1,\"command\":\"status\"}\n{\"id\":2,\"comm"))
        try await channel.writeInbound(ByteBuffer(string: "and\":\"machines\"}\r\n\n"))
        #expect(try await Self.answer(channel) == "{\"ok\":true,\"id\":1,\"result\":{\"command\":\"status\"}}\n")
        #expect(try await Self.answer(channel) == "{\"ok\":true,\"id\":2,\"result\":{\"command\":\"machines\"}}\n")
        #expect(channel.isActive)
        try await channel.close()
    }

    /// The idle timer counts from the last whole request, on the loop's clock: half a line
    /// does not restart it.
    @Test func theIdleTimerCountsFromTheLastWholeRequest() async throws {
        let channel = try await Self.client()
        await channel.testingEventLoop.advanceTime(by: .seconds(30))
        try await channel.writeInbound(ByteBuffer(string: "{\"command\":\"status\"}\n"))
        _ = try await Self.answer(channel)
        try await channel.writeInbound(ByteBuffer(string: "{\"comm"))
        await channel.testingEventLoop.advanceTime(by: .seconds(59))
        #expect(try await channel.readOutbound(as: ByteBuffer.self) == nil)
        await channel.testingEventLoop.advanceTime(by: .seconds(1))
        #expect(try await Self.answer(channel) == "{\"ok\":false,\"error\":\"no request for 60.0 seconds; closing\",\"code\":\"timeout\"}\n")
        await channel.testingEventLoop.run()
        #expect(!channel.isActive)
    }

    @Test func aLineTooLongIsAnsweredAfterTheLinesBeforeItThenClosed() async throws {
        let channel = try await Self.client()
        _ = try? await channel.writeInbound(ByteBuffer(string: "{\"id\":1,\"command\":\"status\"}\n" + String(repeating: "x", count: 300)))
        #expect(try await Self.answer(channel) == "{\"ok\":true,\"id\":1,\"result\":{\"command\":\"status\"}}\n")
        #expect(try await Self.answer(channel) == "{\"ok\":false,\"error\":\"request line longer than 256 bytes; closing\",\"code\":\"line_too_long\"}\n")
        await channel.testingEventLoop.run()
        #expect(!channel.isActive)
    }

    @Test func halfClosureAnswersEveryRequestIncludingAnUnterminatedLastOneThenCloses() async throws {
        let channel = try await Self.client()
        try await channel.writeInbound(ByteBuffer(string: "{\"command\":\"machines\"}\n{\"command\":\"status\"}"))
        channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(try await Self.answer(channel) == "{\"ok\":true,\"result\":{\"command\":\"machines\"}}\n")
        #expect(try await Self.answer(channel) == "{\"ok\":true,\"result\":{\"command\":\"status\"}}\n")
        await channel.testingEventLoop.run()
        #expect(!channel.isActive)
    }

    /// A full registry: the newcomer takes the place of the client waited on longest, which
    /// is told so and closed.
    @Test func aNewcomerTakesThePlaceOfTheIdlestClient() async throws {
        let registry = ClientRegistry(capacity: 1)
        let idle = try await Self.client(registry)
        let newcomer = try await Self.client(registry)
        #expect(try await Self.answer(idle).contains("closed to make room for another client: the control socket takes 1 at once"))
        await idle.testingEventLoop.run()
        #expect(!idle.isActive)
        try await newcomer.writeInbound(ByteBuffer(string: "{\"command\":\"status\"}\n"))
        #expect(try await Self.answer(newcomer) == "{\"ok\":true,\"result\":{\"command\":\"status\"}}\n")
        #expect(registry.count == 1)
        try await newcomer.close()
    }
}
