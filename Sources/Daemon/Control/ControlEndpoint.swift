import Control
import BlueZ
import DaemonConfig
import NIOPosix

/// The control socket (contract §7, owner only) answering through ``DaemonControl``.
struct ControlEndpoint: ControlHandler {
    let control: DaemonControl

    static func listen(_ settings: DaemonConfig.SocketSettings, control: DaemonControl, on loops: MultiThreadedEventLoopGroup) async throws -> ControlServer {
        let configuration = ControlServerConfiguration(path: settings.path, mode: settings.mode, maxClients: settings.maxClients)
        do {
            return try await ControlServer.listen(configuration, handler: ControlEndpoint(control: control), on: loops)
        } catch {
            throw DaemonError("control socket \(settings.path): \(error)")
        }
    }

    func handle(_ request: ControlRequest) async -> ControlResponse {
        let outcome: ControlOutcome
        switch request {
        case .status: outcome = await control.status()
        case .machines: outcome = await control.machines()
        case .setResistance(let machine, let level): outcome = await control.command(.resistance(level), machine: machine)
        case .setPower(let machine, let watts): outcome = await control.command(.power(watts: watts), machine: machine)
        case .start(let machine): outcome = await control.command(.start, machine: machine)
        case .stop(let machine): outcome = await control.command(.stop, machine: machine)
        case .pause(let machine): outcome = await control.command(.pause, machine: machine)
        case .reset(let machine): outcome = await control.command(.reset, machine: machine)
        case .upload: outcome = await control.uploadNow()
        case .startTraining(let machine, let training): outcome = await control.startTraining(training, machine: machine)
        case .stopTraining(let machine): outcome = await control.stopTraining(machine: machine)
        case .handover(let machines): outcome = await control.handover(machines)
        }
        switch outcome {
        case .ok(let json):
            return (try? ControlResponse.success(resultJSON: json)) ?? .failure(.internalError, "the daemon produced an answer that is not a JSON object")
        case .failed(let code, let message):
            return .failure(ControlErrorCode(rawValue: code), message)
        }
    }
}
