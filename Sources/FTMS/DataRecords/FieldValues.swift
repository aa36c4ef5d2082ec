/// Fixed-size storage for the raw values of a record's fields.
///
/// Raw integers, not scaled doubles, are kept: they are what the machine sent, they encode
/// back bit-exactly, and JSON prints them as exact decimals. The storage is inline (no heap),
/// which is what lets a data record decode with zero allocations.
public struct FieldValues: Sendable {
    @usableFromInline var raw: InlineArray<20, Int32> = .init(repeating: 0)
    /// Bit `field.rawValue` is set when the field is present.
    @usableFromInline var presence: UInt32 = 0

    @inlinable
    public init() {}

    @inlinable
    public func contains(_ field: DataField) -> Bool {
        presence & field.bit != 0
    }

    /// The raw wire value, including a "not available" sentinel; `nil` when absent.
    @inlinable
    public func raw(_ field: DataField) -> Int32? {
        contains(field) ? raw[field.rawValue] : nil
    }

    /// The scaled value in the field's unit; `nil` when absent or "not available".
    @inlinable
    public func value(_ field: DataField) -> Double? {
        guard let raw = raw(field) else { return nil }
        let descriptor = field.descriptor
        if raw == descriptor.notAvailable { return nil }
        return descriptor.scale.value(ofRaw: raw)
    }

    /// True when the field is present but carries its "data not available" sentinel.
    @inlinable
    public func isNotAvailable(_ field: DataField) -> Bool {
        guard let raw = raw(field) else { return false }
        return raw == field.descriptor.notAvailable
    }

    @inlinable
    public mutating func set(_ field: DataField, raw value: Int32) {
        raw[field.rawValue] = value
        presence |= field.bit
    }

    /// For the decoder, whose packed layout yields field numbers that are valid by construction.
    @inlinable
    mutating func set(fieldNumber: Int, raw value: Int32) {
        raw[fieldNumber] = value
        presence |= 1 << UInt32(fieldNumber)
    }

    @inlinable
    public mutating func remove(_ field: DataField) {
        presence &= ~field.bit
    }

    /// Sets a field from a value in its unit, rounded to the field's resolution and clamped
    /// to what its wire format can carry.
    public mutating func set(_ field: DataField, value: Double) {
        let descriptor = field.descriptor
        let raw = descriptor.scale.raw(ofValue: value)
        set(field, raw: min(max(raw, descriptor.format.rawRange.lowerBound), descriptor.format.rawRange.upperBound))
    }

    /// Present fields, in ``DataField`` order.
    public var fields: [DataField] {
        DataField.allCases.filter(contains)
    }
}

extension FieldValues: Equatable {
    /// Equal when the same fields are present with the same raw values; the unused slots of
    /// the inline storage do not take part.
    public static func == (lhs: FieldValues, rhs: FieldValues) -> Bool {
        guard lhs.presence == rhs.presence else { return false }
        for field in DataField.allCases where lhs.contains(field) {
            if lhs.raw[field.rawValue] != rhs.raw[field.rawValue] { return false }
        }
        return true
    }
}
