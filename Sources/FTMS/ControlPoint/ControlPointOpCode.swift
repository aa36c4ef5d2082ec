/// Fitness Machine Control Point op codes (FTMS 1.0 Table 4.15).
public enum ControlPointOpCode: UInt8, CaseIterable, Sendable {
    case requestControl = 0x00
    case reset = 0x01
    case setTargetSpeed = 0x02
    case setTargetInclination = 0x03
    case setTargetResistanceLevel = 0x04
    case setTargetPower = 0x05
    case setTargetHeartRate = 0x06
    case startOrResume = 0x07
    case stopOrPause = 0x08
    case setTargetedExpendedEnergy = 0x09
    case setTargetedNumberOfSteps = 0x0A
    case setTargetedNumberOfStrides = 0x0B
    case setTargetedDistance = 0x0C
    case setTargetedTrainingTime = 0x0D
    case setTargetedTimeInTwoHeartRateZones = 0x0E
    case setTargetedTimeInThreeHeartRateZones = 0x0F
    case setTargetedTimeInFiveHeartRateZones = 0x10
    case setIndoorBikeSimulationParameters = 0x11
    case setWheelCircumference = 0x12
    case spinDownControl = 0x13
    case setTargetedCadence = 0x14
    case responseCode = 0x80

    public var jsonName: StaticString {
        switch self {
        case .requestControl: "request_control"
        case .reset: "reset"
        case .setTargetSpeed: "set_target_speed"
        case .setTargetInclination: "set_target_inclination"
        case .setTargetResistanceLevel: "set_target_resistance_level"
        case .setTargetPower: "set_target_power"
        case .setTargetHeartRate: "set_target_heart_rate"
        case .startOrResume: "start_or_resume"
        case .stopOrPause: "stop_or_pause"
        case .setTargetedExpendedEnergy: "set_targeted_expended_energy"
        case .setTargetedNumberOfSteps: "set_targeted_number_of_steps"
        case .setTargetedNumberOfStrides: "set_targeted_number_of_strides"
        case .setTargetedDistance: "set_targeted_distance"
        case .setTargetedTrainingTime: "set_targeted_training_time"
        case .setTargetedTimeInTwoHeartRateZones: "set_targeted_time_in_two_heart_rate_zones"
        case .setTargetedTimeInThreeHeartRateZones: "set_targeted_time_in_three_heart_rate_zones"
        case .setTargetedTimeInFiveHeartRateZones: "set_targeted_time_in_five_heart_rate_zones"
        case .setIndoorBikeSimulationParameters: "set_indoor_bike_simulation_parameters"
        case .setWheelCircumference: "set_wheel_circumference"
        case .spinDownControl: "spin_down_control"
        case .setTargetedCadence: "set_targeted_cadence"
        case .responseCode: "response_code"
        }
    }

    /// The request's parameters; `parameterBytes` picks the Set Target Resistance form.
    public func parameters(parameterBytes: Int) -> [ParameterDescriptor] {
        switch self {
        case .requestControl, .reset, .startOrResume, .responseCode: []
        case .setTargetSpeed: TargetParameters.targetSpeed
        case .setTargetInclination: TargetParameters.targetInclination
        case .setTargetResistanceLevel: TargetParameters.targetResistance(parameterBytes: parameterBytes)
        case .setTargetPower: TargetParameters.targetPower
        case .setTargetHeartRate: TargetParameters.targetHeartRate
        case .stopOrPause: [ParameterDescriptor("control_information", .uint8, naming: .stopOrPause)]
        case .setTargetedExpendedEnergy: TargetParameters.targetedExpendedEnergy
        case .setTargetedNumberOfSteps: TargetParameters.targetedSteps
        case .setTargetedNumberOfStrides: TargetParameters.targetedStrides
        case .setTargetedDistance: TargetParameters.targetedDistance
        case .setTargetedTrainingTime: TargetParameters.targetedTrainingTime
        case .setTargetedTimeInTwoHeartRateZones: TargetParameters.twoZones
        case .setTargetedTimeInThreeHeartRateZones: TargetParameters.threeZones
        case .setTargetedTimeInFiveHeartRateZones: TargetParameters.fiveZones
        case .setIndoorBikeSimulationParameters: TargetParameters.indoorBikeSimulation
        case .setWheelCircumference: TargetParameters.wheelCircumference
        case .spinDownControl: [ParameterDescriptor("spin_down_control", .uint8, naming: .spinDownControl)]
        case .setTargetedCadence: TargetParameters.targetedCadence
        }
    }
}
