import ArgumentParser
import Daemon
import DaemonConfig
import Foundation

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
            environment: environment, version: FTMSBridge.version)
        do {
            try await daemon.run()
        } catch {
            printError("run: \(error)")
            throw ExitCode(1)
        }
    }
}
