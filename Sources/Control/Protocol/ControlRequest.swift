/// One command on the control socket (contract §7): what an operator, through the CLI, asks the
/// daemon to do. The daemon turns the machine commands into contract §4 Control Point writes.
///
/// Values are checked when a request is read (``init(parsing:)``), to the bounds the CLI
/// checks its flags against, so a handler never sees a level it cannot send.
package enum ControlRequest: Sendable, Equatable, Hashable {
    /// The daemon's state: version, login, queue, machines, trainings running.
    case status
    /// The machines the daemon knows and their link state.
    case machines
    case setResistance(machine: String, level: Double)
    case setPower(machine: String, watts: Int)
    case start(machine: String)
    case stop(machine: String)
    case pause(machine: String)
    case reset(machine: String)
    /// Upload the pending sessions now, without waiting for the scheduler.
    case upload
    /// Run a cached training (by its `id`) on a machine.
    case startTraining(machine: String, training: String)
    case stopTraining(machine: String)
    /// Hand machines to the gym's floor (`[fleet]`): each named one (all held when empty) is
    /// released with a fresh mirrored checkpoint, so a neighbour takes it within seconds.
    case handover(machines: [String])

    /// The bounds of Set Target Resistance Level's sint16 form at 0.1, as `ftms-bridge control` checks.
    package static let levelRange: ClosedRange<Double> = -3276.7...3276.7
    /// The bounds of Set Target Power's sint16 watts.
    package static let wattsRange: ClosedRange<Int> = -32767...32767
    /// The longest machine name or training id taken, in bytes.
    package static let maximumNameLength = 256

    /// Every command's wire name, in the order the protocol document lists them.
    package static let commandNames = [
        "status", "machines", "set_resistance", "set_power", "start", "stop", "pause", "reset", "upload",
        "start_training", "stop_training", "handover",
    ]

    /// The wire name: `"command"` in the request line.
    package var command: String {
        switch self {
        case .status: "status"
        case .machines: "machines"
        case .setResistance: "set_resistance"
        case .setPower: "set_power"
        case .start: "start"
        case .stop: "stop"
        case .pause: "pause"
        case .reset: "reset"
        case .upload: "upload"
        case .startTraining: "start_training"
        case .stopTraining: "stop_training"
        case .handover: "handover"
        }
    }

    /// The machine the request is about, for the commands that name one.
    package var machine: String? {
        switch self {
        case .status, .machines, .upload, .handover: nil
        case .setResistance(let machine, _), .setPower(let machine, _), .start(let machine), .stop(let machine),
            .pause(let machine), .reset(let machine), .startTraining(let machine, _), .stopTraining(let machine):
            machine
        }
    }
}
