import ArgumentParser
import BlueZ
import FTMS
import Foundation

/// `ftms-bridge control MACHINE --resistance L | --power W | --start | --stop | --pause | --reset`
/// (SPEC §9): one Control Point command with SPEC §4's policy, standalone over BlueZ.
struct ControlCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "control",
        abstract: "Send one command to a machine's Control Point and report its answer.",
        discussion: """
            Connects, takes control, sends the command and prints the request bytes and the machine's result. \
            A resistance level is clamped to the machine's range; a machine that refuses the spec's uint8 form \
            gets the sint16 form. Exit status 1 when the machine does not answer "success". \
            Uses the system bus, or DBUS_SYSTEM_BUS_ADDRESS.
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

    @Flag(help: "Print the outcome as one JSON object.")
    var json = false

    @Option(help: "Seconds to discover for when the machine is not already known.")
    var scanTimeout: Double = 5

    func validate() throws {
        guard commands.count == 1 else {
            throw ValidationError("give exactly one of --resistance, --power, --start, --stop, --pause, --reset")
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
        guard let command = commands.first else { return }
        try await withBlueZ(command: "control") { client in
            let found = try await client.locate(
                MachineTarget(machine), filter: MachineFilter(acceptGenericFTMS: true), timeout: .milliseconds(Int(scanTimeout * 1000)))
            let link = MachineLink(client: client, device: found.path)
            let info = try await link.connect()
            let outcome: CommandOutcome
            do {
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
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(report)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
