/// Which kind of SolidFocus machine something is: a bike (Indoor Bike Data, 0x2AD2) or a rower
/// (Rower Data, 0x2AD1). The one machine type of the whole product: discovery reads it from
/// the advertised name, a link from the data characteristic it finds, a capture from its header,
/// the engine writes it as the summary's `detail.type`. Not yet knowing is `nil`, not a case.
public enum MachineType: String, Sendable, Hashable, Codable, CaseIterable {
    case bike
    case rower

    /// The advertised-name prefix (contract §2): `SF-Bike-…`, `SF-Rower-…`.
    public var namePrefix: String {
        switch self {
        case .bike: "SF-Bike-"
        case .rower: "SF-Rower-"
        }
    }

    /// The data characteristic whose notifications carry this machine's samples.
    public var dataCharacteristic: Characteristic {
        switch self {
        case .bike: .indoorBikeData
        case .rower: .rowerData
        }
    }

    /// The data record kind this machine's notifications decode and merge as.
    public var dataKind: DataRecord.Kind {
        switch self {
        case .bike: .indoorBikeData
        case .rower: .rowerData
        }
    }

    /// The type a decoded record implies.
    public init(_ kind: DataRecord.Kind) {
        switch kind {
        case .indoorBikeData: self = .bike
        case .rowerData: self = .rower
        }
    }

    /// From the name prefix (contract §2); nil for any other name.
    public init?(machineName name: String) {
        guard let type = Self.allCases.first(where: { name.hasPrefix($0.namePrefix) }) else { return nil }
        self = type
    }

    /// From a data characteristic a machine carries (contract §2's fallback); nil for others.
    public init?(dataCharacteristic characteristic: Characteristic) {
        guard let type = Self.allCases.first(where: { $0.dataCharacteristic == characteristic }) else { return nil }
        self = type
    }

    /// The spellings other tools write: `bike`, `indoor_bike`, `Indoor Bike`, `rower`, `rowing`…
    public init?(lenient text: String) {
        let folded = String(text.lowercased().filter { $0.isLetter })
        switch folded {
        case "bike", "indoorbike", "indoorbikedata", "cycle", "cycling", "spinbike", "trainer": self = .bike
        case "rower", "rowing", "rowerdata", "rowingmachine": self = .rower
        default: return nil
        }
    }
}
