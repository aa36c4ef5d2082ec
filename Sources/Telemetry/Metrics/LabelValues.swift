/// The values one label may take: the documented ones, and `other` for anything else.
///
/// Each series costs the scraper memory for ever, so a label never takes a value from outside
/// (a machine name, an error message): a value not on the list is counted as `other`. Every
/// listed value's series exists from the start at 0, so `rate()` and `increase()` see the
/// first event instead of a series that appears out of nowhere.
struct LabelValues: Sendable {
    static let other = "other"

    let name: String
    let values: [String]
    /// Other spellings of a listed value, counted under it.
    let aliases: [String: String]

    init(_ name: String, _ values: [String], aliases: [String: String] = [:]) {
        self.name = name
        self.values = values + [Self.other]
        self.aliases = aliases
    }

    func bounded(_ value: String) -> String {
        if let alias = aliases[value] { return alias }
        return values.contains(value) ? value : Self.other
    }
}

extension LabelValues {
    /// contract §3.1's characteristic names (the FTMS module's `Characteristic.jsonName`).
    static let characteristic = LabelValues("characteristic", [
        "fitness_machine_feature", "rower_data", "indoor_bike_data", "training_status", "supported_speed_range",
        "supported_inclination_range", "supported_resistance_level_range", "supported_heart_rate_range",
        "supported_power_range", "fitness_machine_control_point", "fitness_machine_status",
    ])
    /// Workout's `EndReason` raw values.
    static let endReason = LabelValues("reason", [
        "stopped", "reset", "safety_key", "idle", "disconnected", "counter_fallback", "shutdown", "end_of_capture",
    ])
    /// Workout's `DropReason` raw values.
    static let dropReason = LabelValues("reason", ["too_short", "no_distance_or_energy"])
    /// Upload's `UploadOutcome` cases.
    static let uploadRun = LabelValues("result", ["settled", "retry", "blocked"])
    /// What became of each session a batch carried (Upload's `BatchReport`).
    static let uploadSession = LabelValues("result", ["accepted", "duplicate", "retried", "dead"])
    static let refresh = LabelValues("result", ["success", "login_required", "failed"])
    /// The control socket's commands (docs/control-socket.md); BlueZ's `MachineCommand.operation`
    /// names count under the command that sends them.
    static let command = LabelValues(
        "command",
        ["status", "machines", "set_resistance", "set_power", "start", "stop", "pause", "reset", "upload", "start_training", "stop_training"],
        aliases: ["set_target_resistance_level": "set_resistance", "set_target_power": "set_power", "start_or_resume": "start"]
    )
    static let commandResult = LabelValues("result", ["ok", "refused", "error"])
    static let queueState = LabelValues("state", ["pending", "uploaded", "dead"])
}
