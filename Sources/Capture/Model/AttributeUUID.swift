public import FTMS

/// A GATT attribute type: the 16-bit SIG UUIDs FTMS uses, and any 128-bit vendor UUID.
///
/// Stored as 128 bits in two words so that it is a plain value (no string per event) and a
/// 16-bit UUID compares equal to its Bluetooth Base UUID expansion, whichever way a capture
/// spelled it.
public struct AttributeUUID: Sendable, Hashable, CustomStringConvertible {
    /// The most significant 64 bits (`0000xxxx-0000-1000` for SIG UUIDs).
    public let high: UInt64
    /// The least significant 64 bits (`8000-00805f9b34fb` for SIG UUIDs).
    public let low: UInt64

    static let baseHighLow: UInt64 = 0x0000_0000_0000_1000
    static let baseLow: UInt64 = 0x8000_0080_5F9B_34FB

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// A 16-bit SIG UUID, on the Bluetooth Base UUID.
    public init(short: UInt16) {
        self.init(high: UInt64(short) << 32 | Self.baseHighLow, low: Self.baseLow)
    }

    /// A 32-bit SIG UUID, on the Bluetooth Base UUID.
    public init(uuid32: UInt32) {
        self.init(high: UInt64(uuid32) << 32 | Self.baseHighLow, low: Self.baseLow)
    }

    public init(_ characteristic: Characteristic) {
        self.init(short: characteristic.rawValue)
    }

    /// The 16-bit form, when this is a SIG UUID that has one.
    public var short: UInt16? {
        guard low == Self.baseLow, high & 0xFFFF_0000_FFFF_FFFF == Self.baseHighLow else { return nil }
        return UInt16(truncatingIfNeeded: high >> 32)
    }

    /// `2ad2` for 16-bit UUIDs, otherwise the lowercase 36-character form.
    public var description: String {
        if let short { return Self.hex(UInt64(short), digits: 4) }
        return Self.hex(high >> 32, digits: 8) + "-" + Self.hex(high >> 16 & 0xFFFF, digits: 4) + "-"
            + Self.hex(high & 0xFFFF, digits: 4) + "-" + Self.hex(low >> 48, digits: 4) + "-"
            + Self.hex(low & 0xFFFF_FFFF_FFFF, digits: 12)
    }

    private static func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}

extension AttributeUUID {
    /// Parses `2ad2`, `0x2AD2`, `00002ad2` (32-bit), or 128 bits with or without dashes.
    /// Anything else is `nil`; callers decide whether that is an error.
    public init?(parsing text: some StringProtocol) {
        var utf8 = Array(text.utf8)
        let parsed: AttributeUUID? = utf8.withUnsafeMutableBufferPointer { Self.parse(UnsafeBufferPointer($0)) }
        guard let parsed else { return nil }
        self = parsed
    }

    /// The allocation-free parser the readers use on raw line bytes.
    static func parse(_ text: UnsafeBufferPointer<UInt8>) -> AttributeUUID? {
        var start = 0
        if text.count > 2, text[0] == UInt8(ascii: "0"), text[1] | 0x20 == UInt8(ascii: "x") { start = 2 }
        var high: UInt64 = 0
        var low: UInt64 = 0
        var digits = 0
        var index = start
        while index < text.count {
            let character = text[index]
            index += 1
            if character == UInt8(ascii: "-") {
                // Dashes only where the 8-4-4-4-12 form puts them.
                guard digits == 8 || digits == 12 || digits == 16 || digits == 20 else { return nil }
                continue
            }
            guard let nibble = Self.nibble(character), digits < 32 else { return nil }
            high = high << 4 | low >> 60
            low = low << 4 | UInt64(nibble)
            digits += 1
        }
        switch digits {
        case 4 where index - start == 4: return AttributeUUID(short: UInt16(truncatingIfNeeded: low))
        case 8 where index - start == 8: return AttributeUUID(uuid32: UInt32(truncatingIfNeeded: low))
        case 32 where index - start == 32 || index - start == 36: return AttributeUUID(high: high, low: low)
        default: return nil
        }
    }

    /// A UUID as ATT carries it: 2 or 16 little-endian bytes; other lengths are not UUIDs.
    static func little(endian bytes: UnsafeRawBufferPointer) -> AttributeUUID? {
        switch bytes.count {
        case 2:
            return AttributeUUID(short: UInt16(bytes[0]) | UInt16(bytes[1]) << 8)
        case 16:
            var high: UInt64 = 0
            var low: UInt64 = 0
            for index in (0..<8).reversed() {
                low = low << 8 | UInt64(bytes[index])
                high = high << 8 | UInt64(bytes[index + 8])
            }
            return AttributeUUID(high: high, low: low)
        default:
            return nil
        }
    }

    @inline(__always)
    static func nibble(_ character: UInt8) -> UInt8? {
        let digit = character &- UInt8(ascii: "0")
        if digit < 10 { return digit }
        let letter = (character | 0x20) &- UInt8(ascii: "a")
        return letter < 6 ? letter &+ 10 : nil
    }
}
