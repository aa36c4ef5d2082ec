package import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// The scrape endpoint: a tiny HTTP/1.1 server on loopback serving ``DaemonMetrics``.
///
/// NIOHTTP1 rather than a web framework: three routes do not need a router, and the package
/// already builds SwiftNIO. Protocol errors get `400` (NIO's `HTTPServerProtocolErrorHandler`),
/// a request over 8 KiB gets `431`, and a connection silent for ``idleTimeout`` is closed, so a
/// stuck or hostile local client holds nothing for long.
package actor PrometheusEndpoint {
    /// The most a client may send before its response: a scrape's GET is a few hundred bytes.
    package static let requestLimit = 8192
    package static let idleTimeout = TimeAmount.seconds(30)

    /// The port bound, which is the one asked for unless that was 0.
    package nonisolated let port: Int
    package nonisolated let host: String
    private let listener: any Channel
    private let connections: Connections
    private var closed = false

    private init(host: String, port: Int, listener: any Channel, connections: Connections) {
        self.host = host
        self.port = port
        self.listener = listener
        self.connections = connections
    }

    /// Listens on `host:port` (port 0: any free port, see ``port``). Refuses a host that is not
    /// loopback before binding anything.
    package static func listen(
        host: String, port: Int, metrics: DaemonMetrics, group: any EventLoopGroup
    ) async throws(PrometheusEndpointError) -> PrometheusEndpoint {
        let address = try PrometheusListenAddress.resolve(host: host, port: port)
        let connections = Connections()
        let listener: any Channel
        do {
            listener = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 64)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    connections.insert(channel)
                    return channel.eventLoop.makeCompletedFuture {
                        let pipeline = channel.pipeline.syncOperations
                        try pipeline.addHandler(IdleStateHandler(readTimeout: idleTimeout))
                        try pipeline.addHandler(IdleCloser())
                        try pipeline.addHandler(RequestSizeLimiter(limit: requestLimit))
                        try pipeline.configureHTTPServerPipeline(withErrorHandling: true)
                        try pipeline.addHandler(ScrapeHandler(metrics: metrics))
                    }
                }
                .bind(to: address)
                .get()
        } catch {
            throw .bindFailed(host: host, port: port, reason: "\(error)")
        }
        return PrometheusEndpoint(host: host, port: listener.localAddress?.port ?? port, listener: listener, connections: connections)
    }

    /// Stops listening and closes every open connection.
    package func close() async {
        guard !closed else { return }
        closed = true
        try? await listener.close()
        for channel in connections.drain() { try? await channel.close() }
    }
}

/// The endpoint's open connections, so ``PrometheusEndpoint/close()`` can end keep-alive
/// scrapers too. Each removes itself when it closes.
private final class Connections: Sendable {
    private let open = Mutex<[ObjectIdentifier: any Channel]>([:])

    func insert(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        open.withLock { $0[id] = channel }
        channel.closeFuture.whenComplete { [self] _ in _ = open.withLock { $0.removeValue(forKey: id) } }
    }

    func drain() -> [any Channel] {
        open.withLock { open in
            defer { open.removeAll() }
            return Array(open.values)
        }
    }
}
