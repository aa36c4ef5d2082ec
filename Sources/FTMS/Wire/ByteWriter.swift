/// Appends little-endian fields to a byte array.
///
/// Encoding is for tests, the simulator and the Control Point writer, none of which is on a
/// per-notification hot path, so it may allocate.
struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func write(_ raw: Int32, as format: WireFormat) {
        let clamped = min(max(raw, format.rawRange.lowerBound), format.rawRange.upperBound)
        let bits = UInt32(bitPattern: clamped)
        for index in 0..<format.byteCount {
            bytes.append(UInt8(truncatingIfNeeded: bits >> (8 * UInt32(index))))
        }
    }

    mutating func writeUInt16(_ value: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
    }

    mutating func writeUInt32(_ value: UInt32) {
        for shift in stride(from: UInt32(0), to: 32, by: 8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> shift))
        }
    }
}
