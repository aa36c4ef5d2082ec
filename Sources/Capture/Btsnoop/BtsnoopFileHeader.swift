/// The 16-byte btsnoop file header (RFC 1761's snoop, as Bluetooth tools adapted it):
/// `btsnoop\0`, a big-endian version (1) and a big-endian datalink type.
enum BtsnoopFileHeader {
    static let magic: [UInt8] = Array("btsnoop".utf8) + [0]
    static let size = 16

    static func datalink(of bytes: UnsafeRawBufferPointer) throws(CaptureError) -> BtsnoopDatalink {
        guard bytes.count >= size else {
            throw CaptureError(.byteOffset(0), "file header truncated: \(bytes.count) of \(size) bytes")
        }
        guard bytes.prefix(magic.count).elementsEqual(magic) else {
            throw CaptureError(.byteOffset(0), "not a btsnoop file (no \"btsnoop\\0\" magic)")
        }
        let version = BigEndian.uint32(bytes, at: 8)
        guard version == 1 else { throw CaptureError(.byteOffset(8), "unsupported btsnoop version \(version)") }
        let type = BigEndian.uint32(bytes, at: 12)
        guard let datalink = BtsnoopDatalink(rawValue: type) else {
            throw CaptureError(
                .byteOffset(12), "unsupported datalink \(type) (expected 1001 HCI, 1002 H4 or 2001 Linux monitor)")
        }
        return datalink
    }
}

/// How each record's packet is framed.
public enum BtsnoopDatalink: UInt32, Sendable, CaseIterable {
    /// Un-encapsulated HCI (H1): no type byte; flags bit 1 marks commands and events, bit 0
    /// the direction.
    case hci = 1001
    /// HCI UART (H4), what Android's snoop log writes: the packet starts with its type byte
    /// (0x02 ACL, 0x04 event…).
    case h4 = 1002
    /// Linux monitor (`btmon -w`): flags hold the controller index (high 16 bits) and an
    /// opcode (low 16 bits) saying what the packet is.
    case linuxMonitor = 2001
}

/// Big- and little-endian loads that never trap: callers check lengths first, and these read
/// byte by byte so alignment never matters.
enum BigEndian {
    @inline(__always)
    static func uint32(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }

    @inline(__always)
    static func int64(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Int64 {
        Int64(bitPattern: UInt64(uint32(bytes, at: offset)) << 32 | UInt64(uint32(bytes, at: offset + 4)))
    }
}

enum LittleEndian {
    @inline(__always)
    static func uint16(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt16 {
        UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }
}
