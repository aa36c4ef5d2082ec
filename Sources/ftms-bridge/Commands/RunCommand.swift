import ArgumentParser
import Daemon
import DaemonConfig
import Foundation
import NIOCore
import NIOPosix

/// `ftms-bridge run [--config PATH]`: the daemon (SPEC §9, §10). Everything it does lives in
/// the `Daemon` module; this reads the config, refusing a bad one with one line naming the
/// key, and hands over.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the daemon: keep machines connected, store and upload sessions, publish live metrics.",
        discussion: "Stops cleanly on SIGTERM or SIGINT (open sessions are checkpointed); SIGHUP re-reads the config.")

    static let defaultConfigPath = "/etc/ftms-bridge/config.toml"

    @Option(help: "The config file (default \(RunCommand.defaultConfigPath); a missing default file means every default).")
    var config: String?

    @Flag(name: .customLong("check-config"), help: "Check the config, print `config OK`, and exit.")
    var checkConfig = false

    @Flag(name: .customLong("print-config"), help: "Print the effective config (file, defaults and systemd's directories) as TOML, and exit.")
    var printConfig = false

    /// Makes NIO's singleton event loops Swift Concurrency's global executor, for the daemon only.
    ///
    /// libdispatch's pool, the default executor on Linux, starts a monitor that wakes every
    /// second for the rest of the process once it has run one task, and parks idle workers on
    /// five-second timeouts; NIO's loops sleep in epoll until a timer or a descriptor is due.
    /// It has to happen before the first task leaves the main thread, so `FTMSBridge.main`
    /// calls it before parsing. Other commands keep the default pool: they are short-lived, and
    /// some block a thread in ways an event loop must never see.
    static func adoptEventLoopExecutor() {
        // Before any thread starts, so that no arena exists yet (see MallocTuning).
        MallocTuning.apply()
        NIOSingletons.groupLoopCountSuggestion = 1
        _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let path = config ?? Self.defaultConfigPath
        let loaded: DaemonConfig
        do {
            loaded = try DaemonConfig.load(path: path, missingIsDefault: config == nil).applyingEnvironment(environment)
        } catch {
            printError("run: \(error)")
            throw ExitCode(1)
        }
        if printConfig {
            _ = printLine(loaded.rendered())
            return
        }
        if checkConfig {
            _ = printLine("config OK: \(FileManager.default.fileExists(atPath: path) ? path : "defaults (no \(path))")")
            return
        }
        let daemon = GatewayDaemon(
            config: loaded, configPath: FileManager.default.fileExists(atPath: path) ? path : nil,
            environment: environment, version: FTMSBridge.version, loops: MultiThreadedEventLoopGroup.singleton)
        do {
            try await daemon.run()
        } catch {
            printError("run: \(error)")
            throw ExitCode(1)
        }
    }
}
