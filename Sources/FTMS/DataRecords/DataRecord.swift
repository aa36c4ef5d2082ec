/// One decoded Indoor Bike Data or Rower Data notification, or a merged sample.
///
/// Decoding follows contract §3: fields are read in flag order while bytes remain; a record
/// shorter than its flags promise keeps every complete field and sets ``truncated``; bytes
/// left over after the last field are counted in ``trailingBytes``, never silently dropped.
public struct DataRecord: Sendable, Equatable {
    public enum Kind: Sendable, Hashable {
        case indoorBikeData
        case rowerData

        public var characteristic: Characteristic {
            switch self {
            case .indoorBikeData: .indoorBikeData
            case .rowerData: .rowerData
            }
        }

        public var layout: RecordLayout {
            switch self {
            case .indoorBikeData: RecordLayout.indoorBikeData
            case .rowerData: RecordLayout.rowerData
            }
        }

        /// The layout's packed groups alone: a plain value with no references, so the
        /// decoder copies it without the retain and release a whole ``RecordLayout`` costs.
        var packedGroups: InlineArray<16, UInt32> {
            switch self {
            case .indoorBikeData: Self.indoorBikeGroups
            case .rowerData: Self.rowerGroups
            }
        }

        private static let indoorBikeGroups = RecordLayout.indoorBikeData.packedGroups
        private static let rowerGroups = RecordLayout.rowerData.packedGroups
    }

    public let kind: Kind
    /// The flags as received; `nil` when the notification was too short to hold them.
    public var flags: UInt16?
    public var values: FieldValues
    public var truncated: Bool
    public var trailingBytes: Int

    /// "More Data" (bit 0): more fields of this record follow in later notifications.
    public var moreData: Bool { (flags ?? 1) & 1 != 0 }

    /// Flag bits FTMS 1.0 reserves; a machine that sets them usually appends bytes we cannot
    /// interpret (docs/ftms.md P9), which then show up in ``trailingBytes``.
    public var reservedFlags: UInt16 { (flags ?? 0) & ~kind.layout.definedFlags }

    public init(kind: Kind, flags: UInt16?, values: FieldValues, truncated: Bool = false, trailingBytes: Int = 0) {
        self.kind = kind
        self.flags = flags
        self.values = values
        self.truncated = truncated
        self.trailingBytes = trailingBytes
    }

    /// A record with exactly these values, with flags derived from which fields are present.
    public init(kind: Kind, values: FieldValues) {
        var flags: UInt16 = 0
        for entry in kind.layout.entries where values.contains(entry.field) {
            flags |= 1 << entry.flagBit
        }
        // Bit 0 is inverted: it is set when its fields are absent.
        flags ^= 1
        self.init(kind: kind, flags: flags, values: values)
    }

    /// Decodes one notification. Never traps, never allocates.
    public init(kind: Kind, decoding bytes: UnsafeRawBufferPointer) {
        self.kind = kind
        self.values = FieldValues()
        self.truncated = false
        self.trailingBytes = 0
        var reader = ByteReader(bytes)
        guard let flags = reader.readUInt16() else {
            self.flags = nil
            self.truncated = true
            return
        }
        self.flags = flags
        let groups = kind.packedGroups
        // Walk only the groups that are present, in flag-bit order, which is wire order.
        // Bit 0 is inverted, and a reserved bit has an empty group.
        var present = flags ^ 1
        while present != 0 {
            var group = groups[present.trailingZeroBitCount]
            present &= present &- 1
            while group != 0 {
                let packed = group & 0xFF
                group >>= 8
                guard let raw = reader.read(packedCode: packed >> 5) else {
                    truncated = true
                    return
                }
                values.set(fieldNumber: Int(packed & 0x1F) &- 1, raw: raw)
            }
        }
        trailingBytes = reader.remaining
    }

    public init(kind: Kind, decoding bytes: some Sequence<UInt8>) {
        let array = Array(bytes)
        self = array.withUnsafeBytes { DataRecord(kind: kind, decoding: $0) }
    }

    /// The notification's bytes: flags, then every field the flags call for. A field the
    /// flags promise but ``values`` lacks is written as its sentinel (or zero).
    public func encoded() -> [UInt8] {
        var writer = ByteWriter()
        let flags = self.flags ?? 1
        writer.writeUInt16(flags)
        for entry in kind.layout.entries where RecordLayout.isPresent(flagBit: entry.flagBit, in: flags) {
            let descriptor = entry.field.descriptor
            writer.write(values.raw(entry.field) ?? descriptor.notAvailable ?? 0, as: descriptor.format)
        }
        return writer.bytes
    }

    /// Present fields whose values lie outside what any machine plausibly sends: the mark of a
    /// device that repurposes fields or uses another resolution (docs/ftms.md P3, P9).
    public var implausibleFields: [DataField] {
        DataField.allCases.filter(isImplausible)
    }

    public func isImplausible(_ field: DataField) -> Bool {
        guard let raw = values.raw(field) else { return false }
        return field.descriptor.isImplausible(raw: raw)
    }
}
