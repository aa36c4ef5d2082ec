import ProcessOutput
import JSON
import ArgumentParser
import BlueZ
import Control
import FTMS
import Foundation

/// `ftms-bridge control MACHINE --resistance L | --power W | --start | --stop | --pause | --reset`
/// (contract §9): one Control Point command with contract §4's policy. Through the running daemon's
/// control socket when there is one (the daemon holds the machine's link), else standalone
/// over BlueZ.
struct ControlCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "control",
        abstract: "Send one command to a machine's Control Point and report its answer.",
        discussion: """
            Connects, takes control, sends the command and prints the request bytes and the machine's result. \
            A resistance level is clamped to the machine's range; a machine that refuses the spec's uint8 form \
            gets the sint16 form. Exit status 1 when the machine does not answer "success". \
            When the daemon (ftms-bridged) is running, the command goes through its control socket; otherwise \
            this connects itself, over the system bus or DBUS_SYSTEM_BUS_ADDRESS. --training and \
            --stop-training need the daemon.
            """
    )

    @Argument(help: "The machine's name or address.")
    var machine: String

    @Option(help: "Target resistance level, in the machine's unit (0.1 resolution).")
    var resistance: Double?

    @Option(help: "Target power in watts.")
    var power: Int?

    @Flag(help: "Start or resume.")
    var start = false

    @Flag(help: "Stop.")
    var stop = false

    @Flag(help: "Pause.")
    var pause = false

    @Flag(help: "Reset the machine (this also ends our control).")
    var reset = false

    @Option(help: "Start this cached training (its id) on the machine: the daemon runs its stages.")
    var training: String?

    @Flag(name: .customLong("stop-training"), help: "Stop the training running on the machine.")
    var stopTraining = false

    @Flag(help: "Print the outcome as one JSON object.")
    var json = false

    @OptionGroup var daemon: DaemonSocketOptions

    @OptionGroup var config: ConfigFileOption

    @Option(help: "Seconds to discover for when the machine is not already known.")
    var scanTimeout: Double = 5

    @OptionGroup var adapter: AdapterOptions

    func validate() throws {
        guard commands.count + (training == nil ? 0 : 1) + (stopTraining ? 1 : 0) == 1 else {
            throw ValidationError("give exactly one of --resistance, --power, --start, --stop, --pause, --reset, --training, --stop-training")
        }
        if let resistance, !resistance.isFinite || abs(resistance) > 3276.7 {
            throw ValidationError("--resistance must be a level between -3276.7 and 3276.7")
        }
        if let power, abs(power) > 32767 { throw ValidationError("--power must be between -32767 and 32767 watts") }
        guard scanTimeout > 0, scanTimeout <= 600 else { throw ValidationError("--scan-timeout must be between 0 and 600 seconds") }
    }

    private var commands: [MachineCommand] {
        [
            resistance.map { MachineCommand.resistance($0) }, power.map { MachineCommand.power(watts: $0) },
            start ? .start : nil, stop ? .stop : nil, pause ? .pause : nil, reset ? .reset : nil,
        ].compactMap { $0 }
    }

    func run() async throws {
        if try throughDaemon() { return }
        guard let command = commands.first else {
            printError("control: --training and --stop-training need the daemon, and none answers at \(try daemon.socketPath(command: "control", config: config))")
            throw ExitCode(1)
        }
        try await withBlueZ(command: "control") { client in
            let found = try await client.locate(
                MachineTarget(machine), filter: adapter.filter(acceptGenericFTMS: true), timeout: .milliseconds(Int(scanTimeout * 1000)))
            let link = MachineLink(client: client, device: found.path)
            let info: MachineInfo
            let outcome: CommandOutcome
            // A connect that fails half-way holds acquired sockets too: every way out
            // disconnects, which gives them back first.
            do {
                info = try await link.connect()
                outcome = try await link.send(command)
            } catch {
                await link.disconnect()
                throw error
            }
            await link.disconnect()
            print(json ? Self.json(outcome, info: info) : Self.line(outcome, info: info))
            guard outcome.succeeded else {
                printError("control: \(info.name) answered \(command.operation) with \(outcome.resultName)")
                throw ExitCode(1)
            }
        }
    }

    /// Sends the command through a running daemon; false when there is none.
    private func throughDaemon() throws -> Bool {
        let request: ControlRequest
        if let training {
            request = .startTraining(machine: machine, training: training)
        } else if stopTraining {
            request = .stopTraining(machine: machine)
        } else if let resistance {
            request = .setResistance(machine: machine, level: resistance)
        } else if let power {
            request = .setPower(machine: machine, watts: power)
        } else if start {
            request = .start(machine: machine)
        } else if stop {
            request = .stop(machine: machine)
        } else if pause {
            request = .pause(machine: machine)
        } else {
            request = .reset(machine: machine)
        }
        guard let result = try daemon.ask(request, command: "control", config: config) else { return false }
        if json {
            print(result)
        } else if let fields = try? JSONReader.read(result), let operation = fields["operation"]?.string {
            print("\(fields["machine"]?.string ?? machine): \(operation) \(fields["request"]?.string ?? "") → \(fields["result"]?.string ?? "?") (through the daemon)")
        } else {
            print(result)
        }
        return true
    }

    static func line(_ outcome: CommandOutcome, info: MachineInfo) -> String {
        var text = "\(info.name): \(outcome.command.operation) \(Hex.string(outcome.request)) → \(outcome.resultName)"
        if outcome.written.count > 1 { text += " (wrote \(outcome.written.map { Hex.string($0) }.joined(separator: ", ")))" }
        return text
    }

    static func json(_ outcome: CommandOutcome, info: MachineInfo) -> String {
        struct Report: Encodable {
            let machine: String
            let address: String
            let operation: String
            let request: String
            let result: String
            let result_code: Int?
            let written: [String]
        }
        let report = Report(
            machine: info.name, address: info.address, operation: outcome.command.operation,
            request: Hex.string(outcome.request), result: outcome.resultName,
            result_code: outcome.response.rawResult.map(Int.init), written: outcome.written.map { Hex.string($0) })
        return (try? ReportJSON.string(report)) ?? "{}"
    }
}
