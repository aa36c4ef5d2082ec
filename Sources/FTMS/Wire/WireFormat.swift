/// The integer encodings FTMS 1.0 uses on the wire, all little-endian (FTMS §1.7).
public enum WireFormat: Sendable, Hashable {
    case uint8
    case uint16
    case sint16
    case uint24

    @inlinable
    public var byteCount: Int {
        switch self {
        case .uint8: 1
        case .uint16, .sint16: 2
        case .uint24: 3
        }
    }

    /// Two bits naming the format inside ``RecordLayout``'s packed groups.
    var packedCode: UInt8 {
        switch self {
        case .uint8: 0
        case .uint16: 1
        case .sint16: 2
        case .uint24: 3
        }
    }

    /// The raw values this format can carry; encoders clamp into it instead of wrapping.
    @inlinable
    public var rawRange: ClosedRange<Int32> {
        switch self {
        case .uint8: 0...0xFF
        case .uint16: 0...0xFFFF
        case .sint16: -0x8000...0x7FFF
        case .uint24: 0...0xFF_FFFF
        }
    }
}
