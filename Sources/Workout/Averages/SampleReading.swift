import FTMS

/// The instantaneous values of one merged sample that the engine averages and integrates,
/// as raw wire integers (scaled only when accumulated).
struct SampleReading: Sendable, Hashable, Codable {
    /// Watts (sint16).
    var power: Int32?
    /// Half revolutions per minute.
    var cadence: Int32?
    /// Hundredths of km/h.
    var speed: Int32?
    /// Beats per minute; 0 (no strap contact) is left out.
    var heartRate: Int32?
    /// Half strokes per minute.
    var strokeRate: Int32?

    init(_ values: FieldValues) {
        power = values.raw(.instantaneousPower)
        cadence = values.raw(.instantaneousCadence)
        speed = values.raw(.instantaneousSpeed)
        heartRate = values.raw(.heartRate).flatMap { $0 > 0 ? $0 : nil }
        strokeRate = values.raw(.strokeRate)
    }

    /// Real movement (contract §5): cadence, speed, stroke rate or power above zero.
    var isMoving: Bool {
        (cadence ?? 0) > 0 || (speed ?? 0) > 0 || (strokeRate ?? 0) > 0 || (power ?? 0) > 0
    }
}
