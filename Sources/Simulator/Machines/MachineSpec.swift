/// One simulated peripheral: what it is, what it advertises and how it behaves.
public struct MachineSpec: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        /// SF-Bike-…: 0xFE01 and 0x1826 advertised, Indoor Bike Data.
        case bike
        /// SF-Rower-…: 0xFE01 and 0x1826 advertised, Rower Data.
        case rower
        /// Another maker's FTMS bike: 0x1826 only, no 0xFE01.
        case genericFTMS = "ftms"
        /// A name like a SolidFocus machine's, but no 0xFE01 (no UUIDs at all) and no GATT.
        case nameOnly = "name-only"
        /// Any other LE device: public address, no UUIDs, no GATT.
        case plain

        /// Whether it has the FTMS GATT database.
        public var hasGatt: Bool { self == .bike || self == .rower || self == .genericFTMS }
    }

    /// Which Set Target Resistance Level parameter the machine's firmware takes (contract §4).
    public enum ResistanceForm: String, Sendable, CaseIterable {
        /// FTMS 1.0's form: one byte at 0.1.
        case uint8
        /// Two bytes at 0.1; the spec's form gets 0x03 "invalid parameter".
        case sint16
        /// Either.
        case any
    }

    public var name: String
    /// `C0:5F:00:00:00:01`, upper case.
    public var address: String
    public var kind: Kind
    /// The adapter that sees it, as `hci0`.
    public var adapter: String
    /// Further adapters in range of it. BlueZ 5.66 makes one Device1 per adapter that hears a
    /// device (`/org/bluez/hciN/dev_…`), so a machine near a gateway with several controllers
    /// is on the bus once under each of them.
    public var alsoSeenBy: [String] = []
    /// Seeds the rider model, so every run streams the same frames.
    public var seed: UInt64
    /// Frames per second the rider model streams while a client is subscribed; 0 streams
    /// nothing (frames then come only from NotifyValue).
    public var streamRate: Double
    public var resistanceForm: ResistanceForm
    /// Connected before (persisted, `Cache=always`): on the bus from the start with its GATT
    /// objects and no RSSI. Otherwise it appears only when discovery sees it.
    public var known: Bool
    /// What the adapter hears, in dBm, before noise.
    public var rssi: Int
    /// A recording the machine plays instead of the rider model (``RecordedRide``).
    public var ride: RecordedRide?

    public init(
        name: String, address: String, kind: Kind, adapter: String = "hci0", seed: UInt64 = 1, streamRate: Double = 1,
        resistanceForm: ResistanceForm = .uint8, known: Bool = false, rssi: Int = -60
    ) {
        self.name = name
        self.address = address.uppercased()
        self.kind = kind
        self.adapter = adapter
        self.seed = seed
        self.streamRate = streamRate
        self.resistanceForm = resistanceForm
        self.known = known
        self.rssi = rssi
    }

    /// The same machine as the adapter `name` sees it (its own Device1 object).
    func seen(by name: String) -> MachineSpec {
        var copy = self
        copy.adapter = name
        copy.alsoSeenBy = []
        return copy
    }

    /// `/org/bluez/hci0/dev_C0_5F_00_00_00_01`.
    public var devicePath: String { "/org/bluez/\(adapter)/dev_" + address.replacingOccurrences(":", "_") }

    var addressType: String { kind == .plain ? "public" : "random" }
}

extension String {
    func replacingOccurrences(_ target: Character, _ replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }

    /// `AA:BB:CC:DD:EE:FF`, hex digits in either case.
    var isBluetoothAddress: Bool {
        let parts = split(separator: ":", omittingEmptySubsequences: false)
        return parts.count == 6 && parts.allSatisfy { $0.count == 2 && $0.allSatisfy(\.isHexDigit) }
    }
}
