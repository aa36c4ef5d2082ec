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
}

extension MachineType {
    /// From the data characteristic a capture shows (contract §2's fallback); nil for others.
    public init?(dataCharacteristic uuid: AttributeUUID) {
        guard let characteristic = uuid.short.flatMap(Characteristic.init(rawValue:)) else { return nil }
        self.init(dataCharacteristic: characteristic)
    }
}
