import FTMS

/// What an operator or a training program asks a machine to do (contract §4). The Control
/// Point writer turns each into a request, choosing the resistance form and clamping.
package enum MachineCommand: Sendable, Equatable {
    /// A resistance level in the machine's own unit, at 0.1 resolution.
    case resistance(Double)
    case power(watts: Int)
    case start
    case stop
    case pause
    case reset
    case indoorBikeSimulation(windSpeedMps: Double, gradePercent: Double, crr: Double, cwKgPerM: Double)

    /// The operation's FTMS name, as the socket and the CLI report it.
    package var operation: String {
        switch self {
        case .resistance: "set_target_resistance_level"
        case .power: "set_target_power"
        case .start: "start_or_resume"
        case .stop: "stop"
        case .pause: "pause"
        case .reset: "reset"
        case .indoorBikeSimulation: "set_indoor_bike_simulation_parameters"
        }
    }

    /// The request in `form`, for a machine whose resistance range is `range`.
    func request(form: ControlPointRequest.ResistanceForm, range: SupportedRange?) -> ControlPointRequest {
        switch self {
        case .resistance(let level): .setTargetResistanceLevel(range?.clamped(level) ?? level, form: form)
        case .power(let watts): .setTargetPower(watts: watts)
        case .start: .startOrResume
        case .stop: .stop
        case .pause: .pause
        case .reset: .reset
        case .indoorBikeSimulation(let wind, let grade, let crr, let cw):
            .setIndoorBikeSimulation(windSpeedMps: wind, gradePercent: grade, crr: crr, cwKgPerM: cw)
        }
    }
}
