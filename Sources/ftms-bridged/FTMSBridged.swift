import ArgumentParser
import Daemon
import DaemonConfig
import FoundationEssentials
import NIOCore
import NIOPosix
#if canImport(Glibc)
import Glibc
import ProcessOutput
#endif

/// `ftms-bridged [--config PATH]`: the daemon (contract §9, §10), as its own executable.
///
/// It links only what keeping machines connected, storing, uploading and publishing needs: no
/// dashboard web server, no doctor, no bulk decoder, no replay. Those stay in `ftms-bridge`,
/// which an operator runs by hand; the unit runs this, as `bluetoothd` beside `bluetoothctl`.
/// Everything it does lives in the `Daemon` module; this reads the config, refusing a bad one
/// with one line naming the key, and hands over. `ftms-bridge run` execs this with its flags.
@main
struct FTMSBridged: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ftms-bridged",
        abstract: "Run the ftms-bridge daemon: keep machines connected, store and upload sessions, publish live metrics.",
        discussion: "Stops cleanly on SIGTERM or SIGINT (open sessions are checkpointed); SIGHUP re-reads the config.",
        version: ProductVersion.current)

    @Option(help: "The config file (default \(GatewayPaths.defaultConfigFile); a missing default file means every default).")
    var config: String?

    @Flag(name: .customLong("check-config"), help: "Check the config, print `config OK`, and exit.")
    var checkConfig = false

    @Flag(name: .customLong("print-config"), help: "Print the effective config (file, defaults and systemd's directories) as TOML, and exit.")
    var printConfig = false

    static func main() async {
        adoptEventLoopExecutor()
        await main(ProcessArguments.current())
    }

    /// Makes NIO's singleton event loops Swift Concurrency's global executor.
    ///
    /// libdispatch's pool, the default executor on Linux, starts a monitor that wakes every
    /// second for the rest of the process once it has run one task, and parks idle workers on
    /// five-second timeouts; NIO's loops sleep in epoll until a timer or a descriptor is due.
    /// It has to happen before the first task leaves the main thread, so `main` calls it
    /// before parsing.
    static func adoptEventLoopExecutor() {
        NIOSingletons.groupLoopCountSuggestion = 1
        _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let path = config ?? GatewayPaths.defaultConfigFile
        let loaded: DaemonConfig
        do {
            loaded = try DaemonConfig.load(path: path, missingIsDefault: config == nil).resolvingPaths(environment: environment)
        } catch {
            Self.printError("\(error)")
            throw ExitCode(1)
        }
        if printConfig {
            Self.printLine(loaded.rendered())
            return
        }
        let exists = FileManager.default.fileExists(atPath: path)
        if checkConfig {
            Self.printLine("config OK: \(exists ? path : "defaults (no \(path))")")
            return
        }
        let daemon = GatewayDaemon(
            config: loaded, configPath: exists ? path : nil,
            environment: environment, version: ProductVersion.current, loops: MultiThreadedEventLoopGroup.singleton,
            machineIDPath: GatewayDaemon.systemMachineIDPath)
        do {
            try await daemon.run()
        } catch {
            Self.printError("\(error)")
            throw ExitCode(1)
        }
    }

    /// contract §9's one line on stderr (the journal).
    static func printError(_ message: String) {
        LineOutput.standardError("ftms-bridged: \(message)")
    }

    static func printLine(_ text: String) {
        LineOutput.standardOutput(text)
    }
}
