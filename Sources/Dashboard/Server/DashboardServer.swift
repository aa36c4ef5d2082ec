public import Clocks
public import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
public import Publish
import ServiceLifecycle

/// `ftms-bridge dashboard`: the page, its event stream and a JSON
/// view of the floor, served by Hummingbird, fed by one or more ``DashboardSource``s.
///
/// Routes: `GET /` the page (HTML with its CSS and JavaScript inline: one request to a first
/// render), `GET /events` the Server-Sent Events stream (a `hello` snapshot, then `tile` and
/// `gateway` events), `GET /api/floor` the snapshot as JSON (for scripts and tests); with a
/// ``SessionLibrary``, the session pages (``SessionPages``): `GET /sessions`,
/// `GET /sessions/ID`, `GET /sessions/ID/plot.svg`, `GET /sessions/ID/summary.json` and
/// `GET /api/sessions`.
///
/// Bounded against rude clients the way the sockets are: request heads over 8 KiB are refused
/// by the HTTP decoder, at most ``Configuration/maxClients`` connections are accepted at once,
/// and every browser's stream sits behind its own ``ClientMailbox``.
public struct DashboardServer: Sendable {
    public struct Configuration: Sendable {
        public var listen: ListenAddress
        /// Required when ``listen`` is not loopback.
        public var token: AccessToken?
        public var limits: ReaderLimits
        public var maxClients: Int
        public var heartbeat: Duration
        /// The page's heading (the gym's name).
        public var title: String

        public init(
            listen: ListenAddress = ListenAddress(host: "127.0.0.1", port: ListenAddress.defaultPort), token: AccessToken? = nil,
            limits: ReaderLimits = ReaderLimits(), maxClients: Int = 64, heartbeat: Duration = .seconds(15), title: String = "Gym floor"
        ) {
            self.listen = listen
            self.token = token
            self.limits = limits
            self.maxClients = maxClients
            self.heartbeat = heartbeat
            self.title = title
        }
    }

    public let hub: DashboardHub
    public let configuration: Configuration
    /// This gateway's finished sessions, for the session pages; `nil`: no session pages.
    public let sessions: SessionLibrary?
    private let sources: [any DashboardSource]
    private let log: @Sendable (String) -> Void

    /// Refuses a non-loopback address without a token before anything is bound.
    public init(
        configuration: Configuration, sources: [any DashboardSource], sessions: SessionLibrary? = nil,
        clock: WallClock, log: @escaping @Sendable (String) -> Void
    ) throws(DashboardServerError) {
        if !configuration.listen.isLoopback, configuration.token == nil { throw .tokenRequired(configuration.listen) }
        self.configuration = configuration
        self.sessions = sessions
        self.sources = sources
        self.log = log
        hub = DashboardHub(limits: configuration.limits, clock: clock)
    }

    /// Serves until SIGINT or SIGTERM; `onListening` gets the bound port.
    public func run(onListening: @escaping @Sendable (Int) async -> Void) async throws {
        try await application(onListening: onListening).runService()
    }

    /// The application with the sources and the heartbeat as its services, for ``run(onListening:)``
    /// and for tests.
    public func application(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        var logger = Logger(label: "ftms-bridge.dashboard") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .critical
        let decoder = HTTP1Channel.Configuration.DecoderConfiguration(maxHeaderFieldSize: 4096, maxHeaderListSize: 8192, maxHeaderFieldCount: 64)
        return Application(
            router: router(),
            server: .http1(configuration: .init(httpDecoderConfiguration: decoder)),
            configuration: .init(
                address: .hostname(configuration.listen.host, port: configuration.listen.port), serverName: nil,
                availableConnectionsDelegate: MaximumAvailableConnections(configuration.maxClients)),
            services: sources.map { SourceService(source: $0, hub: hub) } + [HeartbeatService(hub: hub, every: configuration.heartbeat)],
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? 0) },
            logger: logger)
    }

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        if let token = configuration.token { router.add(middleware: TokenMiddleware(token: token)) }
        let page = ByteBuffer(string: PageAssets.page(title: configuration.title))
        let hub = hub
        router.get("/") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: page))
        }
        router.get("/api/floor") { _, _ in
            let frame = EventFrame.json(await hub.snapshot())
            return Response(
                status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"], body: .init(byteBuffer: frame))
        }
        router.get("/events") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "text/event-stream", .cacheControl: "no-store", .init("X-Accel-Buffering")!: "no"],
                body: ResponseBody { writer in
                    let (id, mailbox, hello) = await hub.connect()
                    do {
                        try await withGracefulShutdownHandler {
                            try await writer.write(EventFrame.retry)
                            try await writer.write(hello)
                            while let item = await mailbox.next() {
                                switch item {
                                case .frame(let frame): try await writer.write(frame)
                                case .resync: try await writer.write(await hub.snapshotFrame())
                                }
                            }
                        } onGracefulShutdown: {
                            mailbox.close()
                        }
                        await hub.disconnect(id)
                        try await writer.finish(nil)
                    } catch {
                        // The browser went away: nothing to tell it.
                        await hub.disconnect(id)
                    }
                })
        }
        if let sessions { SessionRoutes(library: sessions, title: configuration.title, log: log).add(to: router) }
        return router
    }
}

public enum DashboardServerError: Error, Equatable, CustomStringConvertible {
    case tokenRequired(ListenAddress)

    public var description: String {
        switch self {
        case .tokenRequired(let address):
            "--listen \(address) is not loopback: give --token-file with a read-only access token (a 0600 file)"
        }
    }
}

/// Runs one source into the hub for as long as the application runs.
struct SourceService: Service {
    let source: any DashboardSource
    let hub: DashboardHub

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await source.run { event in await hub.apply(event) }
        }
    }
}

/// Offers every browser a comment line now and then: proxies keep the stream open, and a
/// browser that vanished without a FIN is found by the write that fails.
struct HeartbeatService: Service {
    let hub: DashboardHub
    let every: Duration

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: every)
                await hub.heartbeat()
            }
        }
        await hub.closeAll()
    }
}
