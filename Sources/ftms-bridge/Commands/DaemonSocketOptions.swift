import ArgumentParser
import Control
import DaemonConfig

/// `--control-socket`: where a running daemon answers (contract §7). Commands that can act
/// through the daemon try it first, and work standalone when no daemon listens there.
struct DaemonSocketOptions: ParsableArguments {
    @Option(
        name: .customLong("control-socket"),
        help: "The running daemon's control socket (default: the config's control_socket.path, else $\(GatewayPaths.runtimeDirectoryVariable)/\(GatewayPaths.controlSocketName), else \(GatewayPaths.defaultControlSocket)).")
    var controlSocket: String?

    /// `--direct` is the same flag under the name `monitor`'s help uses: connect to the machine
    /// directly, as a second client beside a running daemon's.
    @Flag(name: [.customLong("standalone"), .customLong("direct")], help: "Do not go through a running daemon; act directly (a second Bluetooth client beside it).")
    var standalone = false

    /// The daemon's result (a JSON object's text), or `nil` when no daemon listens (or
    /// `--standalone`). A refusal by the daemon, or any other failure to talk to it (a timeout,
    /// a garbled answer), is the command's one-line error and exit status 1.
    /// `config` names the file read when `--control-socket` is not given.
    func ask(_ request: ControlRequest, command: String, config: ConfigFileOption, timeout: Duration = .seconds(30)) throws -> String? {
        guard !standalone else { return nil }
        let path = try socketPath(command: command, config: config)
        let answer: ControlResponse
        do {
            answer = try ControlClient(socketPath: path, timeout: timeout).request(request)
        } catch let error where error.isNoDaemon {
            return nil
        } catch {
            printError("\(command): the daemon at \(path): \(error)")
            throw ExitCode(1)
        }
        if let failure = answer.failure {
            printError("\(command): \(failure.message)")
            throw ExitCode(1)
        }
        return answer.resultJSON ?? "{}"
    }

    /// `--control-socket`, else the daemon's (``GatewayPaths``); a config that cannot be read is
    /// the command's one-line error.
    func socketPath(command: String, config: ConfigFileOption) throws -> String {
        do {
            return try config.resolve(.controlSocket, flag: controlSocket)
        } catch {
            printError("\(command): \(error)")
            throw ExitCode(1)
        }
    }
}
