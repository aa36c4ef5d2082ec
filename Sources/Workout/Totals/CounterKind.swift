public import FTMS

/// The machine counters a session takes deltas of, with their wire widths.
///
/// The modulus is where the counter wraps: Total Distance is uint24 metres, Total Energy,
/// Elapsed Time and Stroke Count are uint16 (FTMS 1.0; contract §5).
public enum CounterKind: String, Sendable, Hashable, Codable, CaseIterable {
    case distance
    case energy
    case elapsedTime = "elapsed_time"
    case strokeCount = "stroke_count"

    public var field: DataField {
        switch self {
        case .distance: .totalDistance
        case .energy: .totalEnergy
        case .elapsedTime: .elapsedTime
        case .strokeCount: .strokeCount
        }
    }

    public var modulus: Int64 {
        switch self {
        case .distance: 1 << 24
        case .energy, .elapsedTime, .strokeCount: 1 << 16
        }
    }
}
