public import FTMS

/// What kind of machine a session was ridden or rowed on: the summary's `detail.type`.
///
/// The BlueZ module has its own `MachineKind` (with an "unknown" for machines not yet
/// connected); the engine stays independent of Bluetooth, and by the time samples flow the
/// data characteristic has settled the question, so there is no unknown here.
public enum MachineType: String, Sendable, Hashable, Codable, CaseIterable {
    case bike
    case rower

    /// The type a data characteristic implies (contract §2: 0x2AD2 bike, 0x2AD1 rower).
    public init(_ kind: DataRecord.Kind) {
        switch kind {
        case .indoorBikeData: self = .bike
        case .rowerData: self = .rower
        }
    }

    /// The data record kind this machine's notifications decode and merge as.
    public var dataKind: DataRecord.Kind {
        switch self {
        case .bike: .indoorBikeData
        case .rower: .rowerData
        }
    }
}
