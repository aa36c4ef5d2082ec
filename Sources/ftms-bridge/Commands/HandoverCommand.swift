import ArgumentParser
import Control
import JSON

/// `ftms-bridge handover [MACHINE...]`: hands machines to the gym's floor (`[fleet]`, contract
/// §11) through the running daemon, before an upgrade or a restart.
struct HandoverCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "handover",
        abstract: "Hand machines to a neighbouring gateway (the floor, [fleet]) without ending their rides.",
        discussion: """
            For each machine (every machine the daemon holds when none is named): its session's checkpoint is \
            mirrored to the broker, the machine is listed as being released, its claim is released and it is \
            disconnected, so that a neighbour in range takes it within seconds and carries on the same session. \
            Needs the running daemon with [fleet] on. Prints the machines handed over.
            """
    )

    @Argument(help: "Names or addresses of the machines; none: every machine this gateway holds.")
    var machines: [String] = []

    @Flag(help: "Print the daemon's answer as JSON.")
    var json = false

    @OptionGroup var daemon: DaemonSocketOptions
    @OptionGroup var config: ConfigFileOption

    func run() throws {
        guard let result = try daemon.ask(.handover(machines: machines), command: "handover", config: config) else {
            printError("handover: no daemon is running: only a running daemon holds machines to hand over")
            throw ExitCode(1)
        }
        if json {
            print(result)
            return
        }
        let handed = (try? JSONReader.read(result))?["handed_over"]?.array?.compactMap(\.string) ?? []
        print(handed.isEmpty ? "handover: no machine handed over" : "handed over: \(handed.joined(separator: ", "))")
    }
}
