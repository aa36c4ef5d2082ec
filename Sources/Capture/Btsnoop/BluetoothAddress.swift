/// A 48-bit device address, as HCI carries it (little-endian) and BlueZ prints it.
public struct BluetoothAddress: Sendable, Hashable, CustomStringConvertible {
    public let value: UInt64

    public init(value: UInt64) {
        self.value = value & 0xFFFF_FFFF_FFFF
    }

    /// `C0:11:22:33:44:01` (case-insensitive; `-` also separates).
    public init?(parsing text: String) {
        let groups = text.split(whereSeparator: { $0 == ":" || $0 == "-" })
        guard groups.count == 6 else { return nil }
        var value: UInt64 = 0
        for group in groups {
            guard group.count == 2, let byte = UInt8(group, radix: 16) else { return nil }
            value = value << 8 | UInt64(byte)
        }
        self.init(value: value)
    }

    /// Six bytes, least significant first, as in HCI events.
    init(littleEndian bytes: UnsafeRawBufferPointer, at offset: Int) {
        var value: UInt64 = 0
        for index in (0..<6).reversed() { value = value << 8 | UInt64(bytes[offset + index]) }
        self.init(value: value)
    }

    public var description: String {
        (0..<6).reversed().map { shift in
            let text = String(UInt8(truncatingIfNeeded: value >> (UInt64(shift) * 8)), radix: 16, uppercase: true)
            return text.count == 1 ? "0" + text : text
        }.joined(separator: ":")
    }
}
