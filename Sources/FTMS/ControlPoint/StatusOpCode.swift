/// Fitness Machine Status (0x2ADA) op codes (FTMS 1.0 Table 4.17).
public enum StatusOpCode: UInt8, CaseIterable, Sendable {
    case reset = 0x01
    case stoppedOrPausedByUser = 0x02
    case stoppedBySafetyKey = 0x03
    case startedOrResumedByUser = 0x04
    case targetSpeedChanged = 0x05
    case targetInclineChanged = 0x06
    case targetResistanceLevelChanged = 0x07
    case targetPowerChanged = 0x08
    case targetHeartRateChanged = 0x09
    case targetedExpendedEnergyChanged = 0x0A
    case targetedNumberOfStepsChanged = 0x0B
    case targetedNumberOfStridesChanged = 0x0C
    case targetedDistanceChanged = 0x0D
    case targetedTrainingTimeChanged = 0x0E
    case targetedTimeInTwoHeartRateZonesChanged = 0x0F
    case targetedTimeInThreeHeartRateZonesChanged = 0x10
    case targetedTimeInFiveHeartRateZonesChanged = 0x11
    case indoorBikeSimulationParametersChanged = 0x12
    case wheelCircumferenceChanged = 0x13
    case spinDownStatus = 0x14
    case targetedCadenceChanged = 0x15
    case controlPermissionLost = 0xFF

    public var jsonName: StaticString {
        switch self {
        case .reset: "reset"
        case .stoppedOrPausedByUser: "fitness_machine_stopped_or_paused_by_the_user"
        case .stoppedBySafetyKey: "fitness_machine_stopped_by_safety_key"
        case .startedOrResumedByUser: "fitness_machine_started_or_resumed_by_the_user"
        case .targetSpeedChanged: "target_speed_changed"
        case .targetInclineChanged: "target_incline_changed"
        case .targetResistanceLevelChanged: "target_resistance_level_changed"
        case .targetPowerChanged: "target_power_changed"
        case .targetHeartRateChanged: "target_heart_rate_changed"
        case .targetedExpendedEnergyChanged: "targeted_expended_energy_changed"
        case .targetedNumberOfStepsChanged: "targeted_number_of_steps_changed"
        case .targetedNumberOfStridesChanged: "targeted_number_of_strides_changed"
        case .targetedDistanceChanged: "targeted_distance_changed"
        case .targetedTrainingTimeChanged: "targeted_training_time_changed"
        case .targetedTimeInTwoHeartRateZonesChanged: "targeted_time_in_two_heart_rate_zones_changed"
        case .targetedTimeInThreeHeartRateZonesChanged: "targeted_time_in_three_heart_rate_zones_changed"
        case .targetedTimeInFiveHeartRateZonesChanged: "targeted_time_in_five_heart_rate_zones_changed"
        case .indoorBikeSimulationParametersChanged: "indoor_bike_simulation_parameters_changed"
        case .wheelCircumferenceChanged: "wheel_circumference_changed"
        case .spinDownStatus: "spin_down_status"
        case .targetedCadenceChanged: "targeted_cadence_changed"
        case .controlPermissionLost: "control_permission_lost"
        }
    }

    /// The event's parameters; `parameterBytes` picks the Target Resistance Level form.
    public func parameters(parameterBytes: Int) -> [ParameterDescriptor] {
        switch self {
        case .reset, .stoppedBySafetyKey, .startedOrResumedByUser, .controlPermissionLost: []
        case .stoppedOrPausedByUser: [ParameterDescriptor("control_information", .uint8, naming: .stopOrPause)]
        case .targetSpeedChanged: TargetParameters.targetSpeed
        case .targetInclineChanged: TargetParameters.targetInclination
        case .targetResistanceLevelChanged: TargetParameters.targetResistance(parameterBytes: parameterBytes)
        case .targetPowerChanged: TargetParameters.targetPower
        case .targetHeartRateChanged: TargetParameters.targetHeartRate
        case .targetedExpendedEnergyChanged: TargetParameters.targetedExpendedEnergy
        case .targetedNumberOfStepsChanged: TargetParameters.targetedSteps
        case .targetedNumberOfStridesChanged: TargetParameters.targetedStrides
        case .targetedDistanceChanged: TargetParameters.targetedDistance
        case .targetedTrainingTimeChanged: TargetParameters.targetedTrainingTime
        case .targetedTimeInTwoHeartRateZonesChanged: TargetParameters.twoZones
        case .targetedTimeInThreeHeartRateZonesChanged: TargetParameters.threeZones
        case .targetedTimeInFiveHeartRateZonesChanged: TargetParameters.fiveZones
        case .indoorBikeSimulationParametersChanged: TargetParameters.indoorBikeSimulation
        case .wheelCircumferenceChanged: TargetParameters.wheelCircumference
        case .spinDownStatus: [ParameterDescriptor("spin_down_status", .uint8, naming: .spinDownStatus)]
        case .targetedCadenceChanged: TargetParameters.targetedCadence
        }
    }
}
