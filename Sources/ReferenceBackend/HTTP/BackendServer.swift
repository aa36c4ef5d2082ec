public import Clocks
public import Hummingbird
import Logging
import NIOCore
public import ProcessOutput

/// The reference SolidFocus backend as a server: `ftms-backend` is this plus flag parsing.
public struct BackendServer: Sendable {
    public struct StartupError: Error, CustomStringConvertible {
        public let description: String
    }

    let backend: Backend
    let configuration: BackendConfiguration
    let log: @Sendable (String) -> Void

    /// Loads the state file, if any; a bad one is a one-line error rather than an empty start.
    public init(
        configuration: BackendConfiguration, clock: WallClock = .system,
        log: @escaping @Sendable (String) -> Void = { LineOutput.standardError($0) }
    ) throws(StartupError) {
        do {
            backend = try Backend(configuration: configuration, clock: clock)
        } catch {
            throw StartupError(description: error.description)
        }
        self.configuration = configuration
        self.log = log
    }

    /// Serves until SIGINT or SIGTERM; `onListening` gets the bound port (the chosen one when
    /// the configuration says 0).
    public func run(onListening: @escaping @Sendable (Int) async -> Void) async throws {
        try await application(onListening: onListening).runService()
    }

    /// The application, for `run` and for tests (HummingbirdTesting).
    public func application(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        var logger = Logger(label: "ftms-backend") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .warning
        return Application(
            router: BackendRouter.make(backend: backend, configuration: configuration, log: log),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? 0) },
            logger: logger)
    }
}
