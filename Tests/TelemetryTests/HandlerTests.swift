import NIOCore
import NIOEmbedded
import NIOHTTP1
@testable import Telemetry
import Testing

/// The scrape endpoint's handlers, each on its own on an `EmbeddedChannel`: what it passes
/// on, what it answers and when it closes, without a socket or a clock.
@Suite("Prometheus endpoint handlers")
struct HandlerTests {
    static func text(_ channel: EmbeddedChannel) throws -> String {
        var written = ""
        while var buffer = try channel.readOutbound(as: ByteBuffer.self) { written += buffer.readString(length: buffer.readableBytes) ?? "" }
        return written
    }

    /// Up to the limit every byte goes on to the decoder; one byte more gets `431` and the
    /// close, and nothing of it goes on. An answer written starts the count again.
    @Test func requestSizeLimiterPassesUpToItsLimitThenRefuses() throws {
        let channel = EmbeddedChannel(handler: RequestSizeLimiter(limit: 10))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        try channel.writeInbound(ByteBuffer(string: "0123456789"))
        #expect(try channel.readInbound(as: ByteBuffer.self) == ByteBuffer(string: "0123456789"))
        try channel.writeOutbound(ByteBuffer(string: "answer"))
        #expect(try Self.text(channel) == "answer")
        try channel.writeInbound(ByteBuffer(string: "0123456789"))
        #expect(try channel.readInbound(as: ByteBuffer.self) != nil)
        try channel.writeInbound(ByteBuffer(string: "x"))
        #expect(try channel.readInbound(as: ByteBuffer.self) == nil)
        #expect(try Self.text(channel) == RequestSizeLimiter.response)
        channel.embeddedEventLoop.run()
        #expect(!channel.isActive)
        _ = try? channel.finish()
    }

    @Test(arguments: [
        (HTTPMethod.GET, "/metrics", "200 OK", true),
        (.HEAD, "/metrics", "200 OK", false),
        (.GET, "/", "200 OK", true),
        (.GET, "/other?x=1", "404 Not Found", true),
        (.POST, "/metrics", "405 Method Not Allowed", false),
    ])
    func scrapeHandlerAnswersEachRoute(method: HTTPMethod, uri: String, status: String, hasBody: Bool) throws {
        let metrics = DaemonMetrics(version: "9.9")
        metrics.setMachinesConnected(3)
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(HTTPResponseEncoder())
        try channel.pipeline.syncOperations.addHandler(ScrapeHandler(metrics: metrics))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        try channel.writeInbound(HTTPServerRequestPart.head(HTTPRequestHead(version: .http1_1, method: method, uri: uri)))
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        let answer = try Self.text(channel)
        #expect(answer.hasPrefix("HTTP/1.1 \(status)\r\n"), "\(answer)")
        let body = answer.components(separatedBy: "\r\n\r\n").dropFirst().joined()
        #expect(hasBody == !body.isEmpty, "\(answer)")
        if method == .GET, uri == "/metrics" { #expect(body.contains("ftms_bridge_machines_connected 3")) }
        // A method not allowed ends the connection; the others keep it for the next scrape.
        channel.embeddedEventLoop.run()
        #expect(channel.isActive == (method != .POST))
        _ = try? channel.finish()
    }

    @Test func idleCloserClosesOnIdlenessAndPassesEverythingElse() throws {
        let channel = EmbeddedChannel(handler: IdleCloser())
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(channel.isActive)
        channel.pipeline.fireUserInboundEventTriggered(IdleStateHandler.IdleStateEvent.read)
        channel.embeddedEventLoop.run()
        #expect(!channel.isActive)
        _ = try? channel.finish()
    }
}
