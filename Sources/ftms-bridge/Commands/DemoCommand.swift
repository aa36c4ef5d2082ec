import JSON
import ArgumentParser
import FTMS

/// `ftms-bridge demo`: the README's first command runs this after installing.
///
/// Until the daemon exists it decodes the embedded frames (``DemoFrame``) and shows what each
/// became; later it grows into the full simulated gym.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Decode a bundled set of real FTMS frames and show the result."
    )

    @Flag(help: "Print the decoded frames as JSON lines instead of a table.")
    var json = false

    func run() throws {
        var buffer = JSONBuffer()
        var text = ""
        for frame in DemoFrame.embedded {
            guard let bytes = Hex.bytes(frame.hex) else {
                printError("demo: embedded frame '\(frame.label)' is not hex")
                throw ExitCode(1)
            }
            let message = FTMSMessage(characteristic: frame.characteristic, decoding: bytes)
            buffer.removeAll()
            message.writeJSON(into: &buffer)
            let line = buffer.string
            if json {
                text += line + "\n"
            } else {
                text += "\(frame.label)\n  \(frame.characteristic.argumentName) [\(frame.hex)]\n  → \(line)\n"
            }
        }
        print(text, terminator: "")
    }
}
