import ArgumentParser
import Simulator

#if canImport(Glibc)
import Glibc
#endif
import ProcessOutput

/// `ftms-sim`: a simulated bluetoothd 5.66 with SolidFocus machines, on a bus of your choice.
///
/// This file is process plumbing: arguments, the ready line, signals and exit codes. What is
/// simulated lives in the `Simulator` module.
@main
enum FTMSSimMain {
    static func main() async {
        let command: SimulateCommand
        do {
            command = try SimulateCommand.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            if SimulateCommand.exitCode(for: error) == .success {
                LineOutput.write(SimulateCommand.fullMessage(for: error), to: 1)
                exit(0)
            }
            // One line, not the usage screen: a wrapper script reads it as the reason.
            let message = SimulateCommand.message(for: error).split(separator: "\n").first.map(String.init) ?? "bad arguments"
            LineOutput.write("ftms-sim: \(message)", to: 2)
            exit(2)
        }
        exit(await command.simulate())
    }
}

