/// Distance and work integrated from instantaneous speed and power over counted time: the
/// fallback for machines that report no Total Distance or Total Energy (contract §5).
struct IntegratedTotals: Sendable, Hashable, Codable {
    private(set) var metres = 0.0
    private(set) var joules = 0.0

    mutating func add(_ reading: SampleReading, for seconds: Double) {
        if let speed = reading.speed { metres += Double(max(speed, 0)) / 100 / 3.6 * seconds }
        if let power = reading.power { joules += Double(max(power, 0)) * seconds }
    }
}
