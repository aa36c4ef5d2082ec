/// Fitness Machine Feature (0x2ACC): what a machine measures and which targets it accepts.
///
/// Two little-endian uint32 bit fields (FTMS 1.0 §4.3). Reserved bits are kept in the raw
/// integers and left out of the name lists.
///
/// A value shorter than 8 bytes is decoded the way a short data record is (contract §3): each
/// complete word is kept, a word the machine did not send is absent (``wordCount`` says how
/// many arrived, and the JSON omits the rest) and ``truncated`` is set. Reporting a missing
/// word as 0 would claim the machine supports nothing, which is not what it said.
public struct FitnessMachineFeature: Sendable, Equatable {
    /// The Fitness Machine Features word; 0 when ``wordCount`` is 0.
    public var fitnessMachineFeatures: UInt32
    /// The Target Setting Features word; 0 when ``wordCount`` is below 2.
    public var targetSettingFeatures: UInt32
    /// How many of the two words the value held completely: 2 for a whole value.
    public var wordCount = 2
    public var truncated = false
    public var trailingBytes = 0

    public init(fitnessMachineFeatures: UInt32, targetSettingFeatures: UInt32) {
        self.fitnessMachineFeatures = fitnessMachineFeatures
        self.targetSettingFeatures = targetSettingFeatures
    }

    /// A short read keeps what it has: a machine that sends only the first word still tells
    /// us what it measures. A partial word is not guessed at.
    public init(decoding bytes: UnsafeRawBufferPointer) {
        var reader = ByteReader(bytes)
        fitnessMachineFeatures = 0
        targetSettingFeatures = 0
        guard let features = reader.readUInt32() else {
            wordCount = 0
            truncated = true
            return
        }
        fitnessMachineFeatures = features
        guard let targets = reader.readUInt32() else {
            wordCount = 1
            truncated = true
            return
        }
        targetSettingFeatures = targets
        trailingBytes = reader.remaining
    }

    public func encoded() -> [UInt8] {
        var writer = ByteWriter()
        writer.writeUInt32(fitnessMachineFeatures)
        writer.writeUInt32(targetSettingFeatures)
        return writer.bytes
    }

    /// Names of bits 0–16 of the Fitness Machine Features field.
    public static let fitnessMachineFeatureNames: [StaticString] = [
        "average_speed", "cadence", "total_distance", "inclination", "elevation_gain", "pace",
        "step_count", "resistance_level", "stride_count", "expended_energy", "heart_rate_measurement",
        "metabolic_equivalent", "elapsed_time", "remaining_time", "power_measurement",
        "force_on_belt_and_power_output", "user_data_retention",
    ]

    /// Names of bits 0–16 of the Target Setting Features field.
    public static let targetSettingFeatureNames: [StaticString] = [
        "speed_target", "inclination_target", "resistance_target", "power_target", "heart_rate_target",
        "targeted_expended_energy", "targeted_step_number", "targeted_stride_number", "targeted_distance",
        "targeted_training_time", "targeted_time_in_two_heart_rate_zones",
        "targeted_time_in_three_heart_rate_zones", "targeted_time_in_five_heart_rate_zones",
        "indoor_bike_simulation_parameters", "wheel_circumference", "spin_down_control", "targeted_cadence",
    ]

    public var fitnessMachineFeatureList: [String] {
        Self.names(of: fitnessMachineFeatures, in: Self.fitnessMachineFeatureNames)
    }

    public var targetSettingFeatureList: [String] {
        Self.names(of: targetSettingFeatures, in: Self.targetSettingFeatureNames)
    }

    public func supports(target name: String) -> Bool {
        targetSettingFeatureList.contains(name)
    }

    static func names(of bits: UInt32, in names: [StaticString]) -> [String] {
        names.indices.filter { bits & (1 << UInt32($0)) != 0 }.map { names[$0].description }
    }
}
