/// A bounds-checked little-endian cursor over borrowed bytes.
///
/// Reads return `nil` instead of trapping when a field does not fit, which is how a record
/// that is shorter than its flags promise becomes `truncated` rather than a crash.
@usableFromInline
struct ByteReader {
    @usableFromInline let bytes: UnsafeRawBufferPointer
    @usableFromInline var offset: Int = 0

    @inlinable
    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    @inlinable
    var remaining: Int { bytes.count - offset }

    @inlinable
    mutating func read(_ format: WireFormat) -> Int32? {
        let width = format.byteCount
        guard remaining >= width else { return nil }
        defer { offset += width }
        let b0 = Int32(bytes[offset])
        switch format {
        case .uint8:
            return b0
        case .uint16:
            return b0 | Int32(bytes[offset + 1]) << 8
        case .sint16:
            return Int32(Int16(bitPattern: UInt16(truncatingIfNeeded: b0 | Int32(bytes[offset + 1]) << 8)))
        case .uint24:
            return b0 | Int32(bytes[offset + 1]) << 8 | Int32(bytes[offset + 2]) << 16
        }
    }

    /// Reads a field by its packed format code (see ``WireFormat/packedCode``).
    @inlinable
    mutating func read(packedCode code: UInt32) -> Int32? {
        let width = code == 3 ? 3 : (code == 0 ? 1 : 2)
        guard remaining >= width else { return nil }
        defer { offset += width }
        let b0 = Int32(bytes[offset])
        if code == 0 { return b0 }
        let low16 = b0 | Int32(bytes[offset + 1]) << 8
        switch code {
        case 1: return low16
        case 2: return Int32(Int16(truncatingIfNeeded: low16))
        default: return low16 | Int32(bytes[offset + 2]) << 16
        }
    }

    @inlinable
    mutating func readUInt16() -> UInt16? {
        read(.uint16).map { UInt16(truncatingIfNeeded: $0) }
    }

    @inlinable
    mutating func readUInt32() -> UInt32? {
        guard remaining >= 4 else { return nil }
        defer { offset += 4 }
        return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8
            | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
    }
}
