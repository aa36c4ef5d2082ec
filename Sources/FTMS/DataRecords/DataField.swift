/// Every field of Indoor Bike Data (0x2AD2) and Rower Data (0x2AD1), in one namespace.
///
/// The two characteristics share most of their fields (power, energy, heart rate, time).
/// One union lets the merger, the workout engine and the JSON writer treat a bike and a rower
/// alike, while ``RecordLayout`` says which fields each characteristic carries and in which
/// order.
public enum DataField: Int, CaseIterable, Sendable, Hashable {
    case instantaneousSpeed
    case averageSpeed
    case instantaneousCadence
    case averageCadence
    case strokeRate
    case strokeCount
    case averageStrokeRate
    case totalDistance
    case instantaneousPace
    case averagePace
    case resistanceLevel
    case instantaneousPower
    case averagePower
    case totalEnergy
    case energyPerHour
    case energyPerMinute
    case heartRate
    case metabolicEquivalent
    case elapsedTime
    case remainingTime

    /// Widths, resolutions and signedness from the FTMS 1.0 field tables (contract §3).
    @inlinable
    public var descriptor: FieldDescriptor {
        switch self {
        case .instantaneousSpeed: FieldDescriptor("instantaneous_speed_kmh", .uint16, .hundredth, plausible: 0...10_000)
        case .averageSpeed: FieldDescriptor("average_speed_kmh", .uint16, .hundredth, plausible: 0...10_000)
        case .instantaneousCadence: FieldDescriptor("instantaneous_cadence_rpm", .uint16, .half, plausible: 0...500)
        case .averageCadence: FieldDescriptor("average_cadence_rpm", .uint16, .half, plausible: 0...500)
        // Rowers stay under ~60 spm, but paddle ergometers on Rower Data (KayakPro) reach ~90.
        case .strokeRate: FieldDescriptor("stroke_rate_spm", .uint8, .half, plausible: 0...200)
        case .strokeCount: FieldDescriptor("stroke_count", .uint16)
        case .averageStrokeRate: FieldDescriptor("average_stroke_rate_spm", .uint8, .half, plausible: 0...200)
        case .totalDistance: FieldDescriptor("total_distance_m", .uint24)
        case .instantaneousPace: FieldDescriptor("instantaneous_pace_s_per_500m", .uint16)
        case .averagePace: FieldDescriptor("average_pace_s_per_500m", .uint16)
        case .resistanceLevel: FieldDescriptor("resistance_level", .sint16)
        case .instantaneousPower: FieldDescriptor("instantaneous_power_w", .sint16, plausible: -500...3_000)
        case .averagePower: FieldDescriptor("average_power_w", .sint16, plausible: -500...3_000)
        case .totalEnergy: FieldDescriptor("total_energy_kcal", .uint16, notAvailable: 0xFFFF)
        case .energyPerHour: FieldDescriptor("energy_per_hour_kcal", .uint16, notAvailable: 0xFFFF, plausible: 0...5_000)
        case .energyPerMinute: FieldDescriptor("energy_per_minute_kcal", .uint8, notAvailable: 0xFF, plausible: 0...85)
        case .heartRate: FieldDescriptor("heart_rate_bpm", .uint8, plausible: 0...250)
        case .metabolicEquivalent: FieldDescriptor("metabolic_equivalent", .uint8, .tenth)
        case .elapsedTime: FieldDescriptor("elapsed_time_s", .uint16)
        case .remainingTime: FieldDescriptor("remaining_time_s", .uint16)
        }
    }

    /// The field's position in ``FieldValues`` and in presence masks.
    @inlinable
    var bit: UInt32 { 1 << UInt32(rawValue) }
}

extension DataField {
    /// Counters that only grow while a session runs: a late value is still a true one.
    public var isRunningTotal: Bool {
        switch self {
        case .strokeCount, .totalDistance, .totalEnergy, .elapsedTime: true
        default: false
        }
    }
}
