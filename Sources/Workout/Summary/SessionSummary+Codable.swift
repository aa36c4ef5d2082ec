import FTMS

/// Reading summaries back (the store keeps their JSON; stats are computed from it).
///
/// The keys and shapes are those of ``SessionSummary/writeJSON(into:)``: times as ISO 8601
/// strings, the machine flattened into `detail`. A summary decoded from its own JSON equals
/// the original, because every figure was rounded to its printed precision when built.
extension SessionSummary: Codable {
    enum CodingKeys: String, CodingKey {
        case sessionID = "session_id"
        case startedAt = "started_at"
        case endedAt = "ended_at"
        case duration
        case totalEnergy = "total_energy"
        case totalDistance = "total_distance"
        case detail
        case raw
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sessionID = try container.decode(String.self, forKey: .sessionID)
        startedAt = try Self.decodeTime(container, .startedAt)
        endedAt = try Self.decodeTime(container, .endedAt)
        duration = try container.decode(Int.self, forKey: .duration)
        totalEnergy = try container.decode(Int.self, forKey: .totalEnergy)
        totalDistance = try container.decode(Int.self, forKey: .totalDistance)
        detail = try container.decode(SessionDetail.self, forKey: .detail)
        raw = try container.decodeIfPresent(String.self, forKey: .raw)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sessionID, forKey: .sessionID)
        try container.encode(startedAt.iso8601, forKey: .startedAt)
        try container.encode(endedAt.iso8601, forKey: .endedAt)
        try container.encode(duration, forKey: .duration)
        try container.encode(totalEnergy, forKey: .totalEnergy)
        try container.encode(totalDistance, forKey: .totalDistance)
        try container.encode(detail, forKey: .detail)
        try container.encodeIfPresent(raw, forKey: .raw)
    }

    private static func decodeTime(_ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> UTCTime {
        let text = try container.decode(String.self, forKey: key)
        guard let time = UTCTime(iso8601: text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "not an ISO 8601 time: \(text)")
        }
        return time
    }
}

extension SessionDetail: Codable {
    enum CodingKeys: String, CodingKey {
        case name, address, model, type, elapsed, paused
        case averagePower = "avg_power"
        case maximumPower = "max_power"
        case averageCadence = "avg_cadence"
        case averageSpeed = "avg_speed"
        case averageHeartRate = "avg_hr"
        case maximumHeartRate = "max_hr"
        case averageStrokeRate = "avg_stroke_rate"
        case strokeCount = "stroke_count"
        case averagePace = "avg_pace"
        case energyMethod = "energy_method"
        case distanceMethod = "distance_method"
        case sampleCount = "sample_count"
        case endReason = "end_reason"
        case clock
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        machine = MachineIdentity(
            name: try container.decode(String.self, forKey: .name),
            address: try container.decode(String.self, forKey: .address),
            model: try container.decodeIfPresent(String.self, forKey: .model),
            type: try container.decode(MachineType.self, forKey: .type)
        )
        elapsed = try container.decode(Int.self, forKey: .elapsed)
        paused = try container.decode(Int.self, forKey: .paused)
        averagePower = try container.decodeIfPresent(Double.self, forKey: .averagePower)
        maximumPower = try container.decodeIfPresent(Int.self, forKey: .maximumPower)
        averageCadence = try container.decodeIfPresent(Double.self, forKey: .averageCadence)
        averageSpeed = try container.decodeIfPresent(Double.self, forKey: .averageSpeed)
        averageHeartRate = try container.decodeIfPresent(Double.self, forKey: .averageHeartRate)
        maximumHeartRate = try container.decodeIfPresent(Int.self, forKey: .maximumHeartRate)
        averageStrokeRate = try container.decodeIfPresent(Double.self, forKey: .averageStrokeRate)
        strokeCount = try container.decodeIfPresent(Int.self, forKey: .strokeCount)
        averagePace = try container.decodeIfPresent(Double.self, forKey: .averagePace)
        energyMethod = try container.decode(TotalMethod.self, forKey: .energyMethod)
        distanceMethod = try container.decode(TotalMethod.self, forKey: .distanceMethod)
        sampleCount = try container.decode(Int.self, forKey: .sampleCount)
        endReason = try container.decode(EndReason.self, forKey: .endReason)
        clockUnsynchronised = try container.decodeIfPresent(String.self, forKey: .clock) == Self.unsynchronised
    }

    /// `detail.clock` of a session dated by an unsynchronised wall clock; left out otherwise.
    static let unsynchronised = "unsynchronised"

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(machine.name, forKey: .name)
        try container.encode(machine.address, forKey: .address)
        try container.encodeIfPresent(machine.model, forKey: .model)
        try container.encode(machine.type, forKey: .type)
        try container.encode(elapsed, forKey: .elapsed)
        try container.encode(paused, forKey: .paused)
        try container.encodeIfPresent(averagePower, forKey: .averagePower)
        try container.encodeIfPresent(maximumPower, forKey: .maximumPower)
        try container.encodeIfPresent(averageCadence, forKey: .averageCadence)
        try container.encodeIfPresent(averageSpeed, forKey: .averageSpeed)
        try container.encodeIfPresent(averageHeartRate, forKey: .averageHeartRate)
        try container.encodeIfPresent(maximumHeartRate, forKey: .maximumHeartRate)
        try container.encodeIfPresent(averageStrokeRate, forKey: .averageStrokeRate)
        try container.encodeIfPresent(strokeCount, forKey: .strokeCount)
        try container.encodeIfPresent(averagePace, forKey: .averagePace)
        try container.encode(energyMethod, forKey: .energyMethod)
        try container.encode(distanceMethod, forKey: .distanceMethod)
        try container.encode(sampleCount, forKey: .sampleCount)
        try container.encode(endReason, forKey: .endReason)
        if clockUnsynchronised { try container.encode(Self.unsynchronised, forKey: .clock) }
    }
}
