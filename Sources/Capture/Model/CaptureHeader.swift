public import FTMS

/// What a capture says about the machine it recorded (contract §8): the `.ftmscap` header line,
/// or what a btsnoop reader learnt from connection events, advertising and reads.
///
/// Every field is optional because real captures lack some: a btsnoop log that starts after
/// the connection has no address, and a hand-written `.ftmscap` may give only a type.
public struct CaptureHeader: Sendable, Equatable {
    public var name: String?
    /// `C0:11:22:33:44:01`, as BlueZ spells device addresses.
    public var address: String?
    /// Device Information 0x2A29.
    public var manufacturer: String?
    /// Device Information 0x2A24.
    public var model: String?
    public var type: MachineType?
    /// The raw Fitness Machine Feature value (0x2ACC), for replay to decode like a live read.
    public var feature: [UInt8]?
    /// Wall-clock time of the capture's `t = 0`, since the Unix epoch (UTC). Replay needs it to
    /// give sessions real `started_at` times.
    public var start: Duration?

    public init(
        name: String? = nil, address: String? = nil, manufacturer: String? = nil, model: String? = nil,
        type: MachineType? = nil, feature: [UInt8]? = nil, start: Duration? = nil
    ) {
        self.name = name
        self.address = address
        self.manufacturer = manufacturer
        self.model = model
        self.type = type
        self.feature = feature
        self.start = start
    }

    /// Bike or rower: the two FTMS data characteristics SolidFocus machines carry.
    public enum MachineType: String, Sendable, Hashable, CaseIterable {
        case bike
        case rower

        /// The data record kind to decode and merge this machine's notifications as.
        public var dataKind: DataRecord.Kind {
            switch self {
            case .bike: .indoorBikeData
            case .rower: .rowerData
            }
        }

        /// From the name prefix (contract §2), `SF-Bike-…` or `SF-Rower-…`.
        public init?(machineName name: String) {
            if name.hasPrefix("SF-Bike-") {
                self = .bike
            } else if name.hasPrefix("SF-Rower-") {
                self = .rower
            } else {
                return nil
            }
        }

        /// From the data characteristic a machine carries (contract §2's fallback).
        public init?(dataCharacteristic uuid: AttributeUUID) {
            switch uuid.short {
            case Characteristic.indoorBikeData.rawValue: self = .bike
            case Characteristic.rowerData.rawValue: self = .rower
            default: return nil
            }
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
}
