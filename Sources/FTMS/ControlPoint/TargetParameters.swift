/// The target-setting parameters FTMS 1.0 shares between Control Point requests (Table 4.15)
/// and the Status events that confirm them (Table 4.17).
///
/// Set Target Resistance Level is uint8 at 0.1 in the spec, but some machines only accept a
/// sint16 at 0.1 (contract §4, docs/ftms.md P5). Both forms decode: one parameter byte is the spec form,
/// two or more are the sint16 form.
enum TargetParameters {
    static let targetSpeed = [ParameterDescriptor("target_speed_kmh", .uint16, .hundredth)]
    static let targetInclination = [ParameterDescriptor("target_inclination_percent", .sint16, .tenth)]
    static let targetResistanceUInt8 = [ParameterDescriptor("target_resistance_level", .uint8, .tenth)]
    static let targetResistanceSInt16 = [ParameterDescriptor("target_resistance_level", .sint16, .tenth)]
    static let targetPower = [ParameterDescriptor("target_power_w", .sint16)]
    static let targetHeartRate = [ParameterDescriptor("target_heart_rate_bpm", .uint8)]
    static let targetedExpendedEnergy = [ParameterDescriptor("targeted_expended_energy_kcal", .uint16)]
    static let targetedSteps = [ParameterDescriptor("targeted_number_of_steps", .uint16)]
    static let targetedStrides = [ParameterDescriptor("targeted_number_of_strides", .uint16)]
    static let targetedDistance = [ParameterDescriptor("targeted_distance_m", .uint24)]
    static let targetedTrainingTime = [ParameterDescriptor("targeted_training_time_s", .uint16)]
    static let twoZones = [
        ParameterDescriptor("targeted_time_in_fat_burn_zone_s", .uint16),
        ParameterDescriptor("targeted_time_in_fitness_zone_s", .uint16),
    ]
    static let threeZones = [
        ParameterDescriptor("targeted_time_in_light_zone_s", .uint16),
        ParameterDescriptor("targeted_time_in_moderate_zone_s", .uint16),
        ParameterDescriptor("targeted_time_in_hard_zone_s", .uint16),
    ]
    static let fiveZones = [
        ParameterDescriptor("targeted_time_in_very_light_zone_s", .uint16),
        ParameterDescriptor("targeted_time_in_light_zone_s", .uint16),
        ParameterDescriptor("targeted_time_in_moderate_zone_s", .uint16),
        ParameterDescriptor("targeted_time_in_hard_zone_s", .uint16),
        ParameterDescriptor("targeted_time_in_maximum_zone_s", .uint16),
    ]
    static let indoorBikeSimulation = [
        ParameterDescriptor("wind_speed_mps", .sint16, .thousandth),
        ParameterDescriptor("grade_percent", .sint16, .hundredth),
        ParameterDescriptor("coefficient_of_rolling_resistance", .uint8, .tenThousandth),
        ParameterDescriptor("wind_resistance_coefficient_kg_per_m", .uint8, .hundredth),
    ]
    static let wheelCircumference = [ParameterDescriptor("wheel_circumference_mm", .uint16, .tenth)]
    static let targetedCadence = [ParameterDescriptor("targeted_cadence_rpm", .uint16, .half)]

    /// Picks the resistance form from how many parameter bytes there are.
    static func targetResistance(parameterBytes: Int) -> [ParameterDescriptor] {
        parameterBytes >= 2 ? targetResistanceSInt16 : targetResistanceUInt8
    }
}
