/// The FTMS characteristics this codec knows, by their 16-bit SIG UUIDs.
public enum Characteristic: UInt16, CaseIterable, Sendable, Hashable {
    case fitnessMachineFeature = 0x2ACC
    case rowerData = 0x2AD1
    case indoorBikeData = 0x2AD2
    case trainingStatus = 0x2AD3
    case supportedSpeedRange = 0x2AD4
    case supportedInclinationRange = 0x2AD5
    case supportedResistanceLevelRange = 0x2AD6
    case supportedHeartRateRange = 0x2AD7
    case supportedPowerRange = 0x2AD8
    case fitnessMachineControlPoint = 0x2AD9
    case fitnessMachineStatus = 0x2ADA

    /// The contract §3.1 `characteristic` value.
    public var jsonName: StaticString {
        switch self {
        case .fitnessMachineFeature: "fitness_machine_feature"
        case .rowerData: "rower_data"
        case .indoorBikeData: "indoor_bike_data"
        case .trainingStatus: "training_status"
        case .supportedSpeedRange: "supported_speed_range"
        case .supportedInclinationRange: "supported_inclination_range"
        case .supportedResistanceLevelRange: "supported_resistance_level_range"
        case .supportedHeartRateRange: "supported_heart_rate_range"
        case .supportedPowerRange: "supported_power_range"
        case .fitnessMachineControlPoint: "fitness_machine_control_point"
        case .fitnessMachineStatus: "fitness_machine_status"
        }
    }

    /// The contract §3.1 `uuid` value: four lowercase hex digits.
    public var shortUUID: StaticString {
        switch self {
        case .fitnessMachineFeature: "2acc"
        case .rowerData: "2ad1"
        case .indoorBikeData: "2ad2"
        case .trainingStatus: "2ad3"
        case .supportedSpeedRange: "2ad4"
        case .supportedInclinationRange: "2ad5"
        case .supportedResistanceLevelRange: "2ad6"
        case .supportedHeartRateRange: "2ad7"
        case .supportedPowerRange: "2ad8"
        case .fitnessMachineControlPoint: "2ad9"
        case .fitnessMachineStatus: "2ada"
        }
    }

    /// The 128-bit form BlueZ uses in `UUID` properties.
    public var uuid: String { AssignedNumbers.fullUUID(rawValue) }

    /// Parses what a user may type (contract §9): `2ad2`, `0x2AD2`, `indoor-bike-data`,
    /// `indoor_bike_data` or the 128-bit UUID.
    public init?(parsing argument: String) {
        let text = argument.lowercased()
        if let match = Characteristic.allCases.first(where: { text == $0.jsonName.description || text == $0.jsonName.description.replacingUnderscores() }) {
            self = match
            return
        }
        guard let short = AssignedNumbers.shortUUID(parsing: text), let match = Characteristic(rawValue: short) else {
            return nil
        }
        self = match
    }
}

extension Characteristic {
    /// The name users type on the command line (`indoor-bike-data`).
    public var argumentName: String { jsonName.description.replacingUnderscores() }
}

extension String {
    fileprivate func replacingUnderscores() -> String {
        String(map { $0 == "_" ? "-" : $0 })
    }
}
