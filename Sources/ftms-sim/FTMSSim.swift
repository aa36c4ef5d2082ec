import ArgumentParser
import Simulator

#if canImport(Glibc)
import Glibc
#endif

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
                writeLine(SimulateCommand.fullMessage(for: error), to: 1)
                exit(0)
            }
            // One line, not the usage screen: a wrapper script reads it as the reason.
            let message = SimulateCommand.message(for: error).split(separator: "\n").first.map(String.init) ?? "bad arguments"
            writeLine("ftms-sim: \(message)", to: 2)
            exit(2)
        }
        exit(await command.simulate())
    }
}

/// Writes a whole line with one write(2), so lines from several threads never interleave.
func writeLine(_ text: String, to descriptor: Int32) {
    var bytes = Array(text.utf8)
    bytes.append(UInt8(ascii: "\n"))
    var offset = 0
    while offset < bytes.count {
        let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if written < 0, errno == EINTR { continue }
        guard written > 0 else { return }
        offset += written
    }
}
