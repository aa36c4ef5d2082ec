import ArgumentParser
import DaemonConfig
import Doctor
import Foundation

/// `ftms-bridge doctor`: the operator's first look when something is wrong, from the kernel's
/// Bluetooth to the backend. Parses the flags and prints; the checks live in `Doctor`.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check BlueZ, the adapters, the D-Bus policy, the state, the sockets, the backend and the config.",
        discussion: """
            Prints one line per check ([ OK ], [WARN], [FAIL], [SKIP]) with what to do under each \
            warning or failure. Exit status 1 when any check failed. Tokens are never printed. \
            docs/doctor.md explains every check.
            """
    )

    @Option(help: "The config file (default: \(GatewayPaths.defaultConfigFile); a missing default file means defaults).")
    var config: String?

    @Option(help: "D-Bus address of the bus BlueZ is on (default: the config's bluetooth.bus_address, else $DBUS_SYSTEM_BUS_ADDRESS, else the system bus).")
    var bus: String?

    @Option(help: "The backend's base URL to check (default: the config's backend.url).")
    var backend: String?

    @Option(name: .customLong("state-dir"), help: "The state directory (default: the config's state.directory, else $\(GatewayPaths.stateDirectoryVariable), else \(GatewayPaths.defaultStateDirectory)).")
    var stateDirectory: String?

    @Flag(help: "Print one JSON object instead.")
    var json = false

    func run() async throws {
        var inputs = DoctorInputs(version: FTMSBridge.version, environment: ProcessInfo.processInfo.environment)
        inputs.configPath = config
        inputs.busAddress = bus
        inputs.backendURL = backend
        inputs.stateDirectory = stateDirectory
        let report = await Doctor(inputs: inputs).run()
        printLine(json ? report.json : report.text)
        if report.exitStatus != 0 { throw ExitCode(report.exitStatus) }
    }
}
