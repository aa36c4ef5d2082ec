import NIOCore
import NIOHTTP1

/// Answers one HTTP request at a time: `GET /metrics` with the exposition, `GET /` with a
/// pointer to it, 404 for other paths and 405 for other methods. `HEAD` is answered like
/// `GET` without the body, as HTTP requires.
final class ScrapeHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    static let exposition = "text/plain; version=0.0.4; charset=utf-8"
    static let index = "ftms-bridge: Prometheus metrics are at /metrics\n"

    private let metrics: DaemonMetrics
    private var request: HTTPRequestHead?

    init(metrics: DaemonMetrics) { self.metrics = metrics }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): request = head
        case .body: break
        case .end:
            guard let head = request else { return }
            request = nil
            respond(to: head, context: context)
        }
    }

    /// A parse error has already been answered with 400 by `HTTPServerProtocolErrorHandler`;
    /// any error ends the connection, so a broken client holds nothing open.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        var headers = HTTPHeaders()
        let status: HTTPResponseStatus
        let body: [UInt8]
        switch (head.method, path) {
        case (.GET, "/metrics"), (.HEAD, "/metrics"):
            status = .ok
            headers.add(name: "content-type", value: Self.exposition)
            body = metrics.exposition()
        case (.GET, "/"), (.HEAD, "/"):
            status = .ok
            headers.add(name: "content-type", value: "text/plain; charset=utf-8")
            body = Array(Self.index.utf8)
        case (.GET, _), (.HEAD, _):
            status = .notFound
            headers.add(name: "content-type", value: "text/plain; charset=utf-8")
            body = Array("not found: try /metrics\n".utf8)
        default:
            status = .methodNotAllowed
            headers.add(name: "allow", value: "GET, HEAD")
            body = []
        }
        headers.add(name: "content-length", value: String(body.count))
        let keepAlive = head.isKeepAlive && status != .methodNotAllowed
        headers.add(name: "connection", value: keepAlive ? "keep-alive" : "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
        if head.method != .HEAD, !body.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        }
        let sent = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            let channel = context.channel
            sent.whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
