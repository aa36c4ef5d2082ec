import Dashboard
import DaemonConfig
import Foundation
import Logging
import Store
import ServiceLifecycle

/// `[dashboard]`: the gym-floor page served by `run` itself (docs/dashboard.md), reading the
/// daemon's own metrics socket as any reader does, so the daemon's path to the page is the
/// same protocol, limits and backpressure as an integrator's.
///
/// Its failure is not the gateway's: a port already taken is one error line and the daemon
/// runs on without the page (the service group ignores this service's end).
struct DashboardService: Service {
    let application: any Service
    let address: String
    let logger: Logger

    /// Nil when `[dashboard]` is off; throws a one-line error for a bad address or token file,
    /// before anything is opened.
    static func make(config: DaemonConfig, logger: Logger) throws(DaemonError) -> DashboardService? {
        let settings = config.dashboard
        guard settings.enabled else { return nil }
        let server: DashboardServer
        // The session pages read the daemon's database through a read-only connection of their
        // own (WAL lets it read while the daemon writes), so a browser never holds the store's
        // writer; it opens on the first request, after the daemon has opened and migrated it.
        let directory = config.state.directory
        let sessions = SessionLibrary { try GatewayStore(readingFrom: directory) }
        do {
            let listen = try ListenAddress(parsing: settings.listen)
            let token = settings.tokenFile.isEmpty ? nil : try AccessToken(file: settings.tokenFile)
            let gateway = settings.gateway.isEmpty ? ProcessInfo.processInfo.hostName : settings.gateway
            let source = MetricsSocketSource(path: config.metricsSocket.path, gateway: gateway, log: { logger.warning("\($0)") })
            server = try DashboardServer(
                configuration: .init(listen: listen, token: token, title: settings.title), sources: [source], sessions: sessions,
                now: { Date().timeIntervalSince1970 }, log: { logger.warning("\($0)") })
        } catch {
            throw DaemonError("dashboard.listen \(settings.listen): \(error)")
        }
        let listen = server.configuration.listen
        let application = server.application { port in
            logger.info("dashboard on http://\(ListenAddress(host: listen.host, port: port))/")
        }
        return DashboardService(application: application, address: listen.description, logger: logger)
    }

    func run() async throws {
        do {
            try await application.run()
        } catch {
            logger.error("dashboard on \(address) stopped: \(error)")
        }
    }
}
