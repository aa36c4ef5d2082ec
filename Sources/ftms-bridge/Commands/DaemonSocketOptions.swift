import ArgumentParser
import Control

/// `--control-socket`: where a running daemon answers (contract §7). Commands that can act
/// through the daemon try it first, and work standalone when no daemon listens there.
struct DaemonSocketOptions: ParsableArguments {
    @Option(name: .customLong("control-socket"), help: "The running daemon's control socket (default \(ControlServerConfiguration.defaultPath)).")
    var controlSocket: String = ControlServerConfiguration.defaultPath

    /// `--direct` is the same flag under the name `monitor`'s help uses: connect to the machine
    /// directly, as a second client beside a running daemon's.
    @Flag(name: [.customLong("standalone"), .customLong("direct")], help: "Do not go through a running daemon; act directly (a second Bluetooth client beside it).")
    var standalone = false

    /// The daemon's result (a JSON object's text), or `nil` when no daemon listens (or
    /// `--standalone`). A refusal by the daemon, or any other failure to talk to it (a timeout,
    /// a garbled answer), is the command's one-line error and exit status 1.
    func ask(_ request: ControlRequest, command: String, timeout: Duration = .seconds(30)) throws -> String? {
        guard !standalone else { return nil }
        let answer: ControlResponse
        do {
            answer = try ControlClient(socketPath: controlSocket, timeout: timeout).request(request)
        } catch let error where error.isNoDaemon {
            return nil
        } catch {
            printError("\(command): the daemon at \(controlSocket): \(error)")
            throw ExitCode(1)
        }
        if let failure = answer.failure {
            printError("\(command): \(failure.message)")
            throw ExitCode(1)
        }
        return answer.resultJSON ?? "{}"
    }
}
