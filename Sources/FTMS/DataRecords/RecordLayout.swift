/// Which flag bit gates which fields, in wire order, for one data characteristic.
///
/// FTMS 1.0 Tables 4.9 (Indoor Bike Data) and 4.14 (Rower Data). Bit 0 is "More Data" and the
/// only inverted bit: its fields are present when it is 0 (contract §3, docs/ftms.md P1). Bits 1 and 2 of
/// Indoor Bike Data are average speed and instantaneous cadence, as every real machine sends
/// them; the PDF's table and the SIG XML each swap something here (docs/ftms.md P2).
public struct RecordLayout: Sendable {
    /// One field and the flag bit that gates it. A bit that gates several fields (rower bit 0,
    /// the energy triplet at bit 8) appears once per field, in wire order.
    public struct Entry: Sendable {
        public let flagBit: UInt16
        public let field: DataField
    }

    /// Flat, in wire order, so the decoder walks one array with no nesting.
    public let entries: [Entry]
    /// Flag bits this layout defines; the rest are reserved for future use.
    public let definedFlags: UInt16
    /// The same layout packed for the decoder's hot loop: for each flag bit, up to three
    /// fields, one byte each, low byte first, 0 ending the group. A byte holds the field's
    /// `rawValue + 1` in bits 0–4 and its ``WireFormat/packedCode`` in bits 5–6. Derived from
    /// ``entries``, so the two can never disagree.
    let packedGroups: InlineArray<16, UInt32>

    init(_ groups: [(UInt16, [DataField])]) {
        self.entries = groups.flatMap { group in group.1.map { Entry(flagBit: group.0, field: $0) } }
        self.definedFlags = groups.reduce(0) { $0 | (1 << $1.0) }
        var packed = InlineArray<16, UInt32>(repeating: 0)
        for (bit, fields) in groups {
            packed[Int(bit)] = fields.reversed().reduce(0) { group, field in
                group << 8 | UInt32(field.rawValue + 1) | UInt32(field.descriptor.format.packedCode) << 5
            }
        }
        self.packedGroups = packed
    }

    /// Flags that make every field of this layout present (bit 0 clear, bits 1–12 set).
    public var allFieldsFlags: UInt16 { definedFlags & ~1 }

    /// Whether a group's fields are present under `flags`.
    @inlinable
    public static func isPresent(flagBit: UInt16, in flags: UInt16) -> Bool {
        let set = flags & (1 << flagBit) != 0
        return flagBit == 0 ? !set : set
    }

    static let indoorBikeData = RecordLayout([
        (0, [.instantaneousSpeed]),
        (1, [.averageSpeed]),
        (2, [.instantaneousCadence]),
        (3, [.averageCadence]),
        (4, [.totalDistance]),
        (5, [.resistanceLevel]),
        (6, [.instantaneousPower]),
        (7, [.averagePower]),
        (8, [.totalEnergy, .energyPerHour, .energyPerMinute]),
        (9, [.heartRate]),
        (10, [.metabolicEquivalent]),
        (11, [.elapsedTime]),
        (12, [.remainingTime]),
    ])

    static let rowerData = RecordLayout([
        (0, [.strokeRate, .strokeCount]),
        (1, [.averageStrokeRate]),
        (2, [.totalDistance]),
        (3, [.instantaneousPace]),
        (4, [.averagePace]),
        (5, [.instantaneousPower]),
        (6, [.averagePower]),
        (7, [.resistanceLevel]),
        (8, [.totalEnergy, .energyPerHour, .energyPerMinute]),
        (9, [.heartRate]),
        (10, [.metabolicEquivalent]),
        (11, [.elapsedTime]),
        (12, [.remainingTime]),
    ])
}
