import ArgumentParser
import Clocks
import DaemonConfig
import Dashboard
import Foundation
import MetricsClient
import MQTT
import Publish
import Store

/// `ftms-bridge dashboard`: the gym-floor page in a browser (docs/dashboard.md), fed by the
/// local metrics socket; its session pages read this gateway's store, opened read-only beside
/// the daemon. Read-only: it sends nothing to the daemon but a connection.
struct DashboardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dashboard",
        abstract: "Serve the gym-floor dashboard: live tiles per machine, in a browser.",
        discussion: """
            Listens on loopback by default. A non-loopback --listen needs --token-file: a file of mode 0600 holding \
            a read-only access token of at least 16 characters; open the page as http://HOST:PORT/?token=TOKEN. \
            docs/dashboard.md describes the page, its event stream and how to put it on a TV.
            """
    )

    @Option(help: "Where to serve the page: HOST:PORT (port 0: any free port).")
    var listen = "127.0.0.1:\(ListenAddress.defaultPort)"

    @Option(
        help: "The metrics socket (default: the config's metrics_socket.path, else $\(GatewayPaths.runtimeDirectoryVariable)/\(GatewayPaths.metricsSocketName), else \(GatewayPaths.defaultMetricsSocket)).")
    var socket: String?

    @Option(help: "This gateway's name on the page (default: the host name).")
    var gateway: String?

    @Option(help: "A file (mode 0600) holding the read-only access token; required for a non-loopback --listen.")
    var tokenFile: String?

    @Option(help: "The page's heading.")
    var title = "Gym floor"

    @Option(help: "Read every gateway from an MQTT broker instead of the socket (mqtt://HOST:PORT or mqtts://…).")
    var mqtt: String?

    @Option(help: "With --mqtt: the gateways' topic prefix.")
    var mqttPrefix = "ftms-bridge"

    @Option(help: "With --mqtt: the broker user name.")
    var mqttUsername: String?

    @Option(help: "With --mqtt: a file (mode 0600) holding the broker password.")
    var mqttPasswordFile: String?

    @Option(help: "With --mqtt: the CA file for mqtts://.")
    var mqttCaFile: String?

    /// The session pages read this gateway's database, read-only, beside the running daemon.
    @OptionGroup var state: StateOptions

    func run() async throws {
        let server: DashboardServer
        var socketPath = ""
        do {
            let address = try ListenAddress(parsing: listen)
            let token = try tokenFile.map { (path) throws(AccessTokenError) in try AccessToken(file: path) }
            let name = gateway ?? ProcessInfo.processInfo.hostName
            let source: any DashboardSource
            if let mqtt {
                let password = try mqttPasswordFile.map { (path) throws(AccessTokenError) in try PrivateFile.read(path) }
                let client = try MQTTClient(MQTTConfiguration(
                    broker: try BrokerURL(parsing: mqtt), clientID: "ftms-dashboard-\(name)-\(getpid())", username: mqttUsername,
                    password: password, caFile: mqttCaFile))
                source = MQTTSource(client: client, prefix: mqttPrefix, log: { printError($0) })
            } else {
                socketPath = try state.config.resolve(.metricsSocket, flag: socket)
                source = MetricsSocketSource(client: MetricsSocketClient(path: socketPath), gateway: name, log: { printError($0) })
            }
            // Found at the first page that asks, as the store is opened: the floor needs no
            // config, and a config that cannot be read is the session pages' 503, not a
            // dashboard that does not start.
            let (flag, configPath) = (state.stateDirectory, state.config.path)
            let sessions = SessionLibrary {
                try GatewayStore(readingFrom: try ConfigFileOption.resolve(.stateDirectory, flag: flag, config: configPath))
            }
            server = try DashboardServer(
                configuration: .init(listen: address, token: token, title: title), sources: [source], sessions: sessions,
                clock: .system, log: { printError($0) })
        } catch {
            printError("dashboard: \(error)")
            throw ExitCode(2)
        }
        let address = server.configuration.listen
        let reading = mqtt.map { "MQTT \($0)" } ?? "metrics socket \(socketPath)"
        let secured = server.configuration.token != nil
        do {
            try await server.run { port in
                let host = address.host.contains(":") ? "[\(address.host)]" : address.host
                _ = printLine("dashboard: http://\(host):\(port)/\(secured ? "?token=…" : "") (\(reading))")
            }
        } catch {
            printError("dashboard: \(error)")
            throw ExitCode(1)
        }
    }
}
