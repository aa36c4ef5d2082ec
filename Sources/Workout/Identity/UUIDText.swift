/// RFC 9562 UUID text, written by hand so the engine needs no Foundation.
enum UUIDText {
    /// A version 4, variant 10 UUID from 128 random bits, lowercase as RFC 9562 recommends.
    static func version4(high: UInt64, low: UInt64) -> String {
        let high = (high & ~0xF000) | 0x4000
        let low = (low & ~(0xC << 60)) | (0x8 << 60)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(36)
        for index in 0..<32 {
            if index == 8 || index == 12 || index == 16 || index == 20 { bytes.append(UInt8(ascii: "-")) }
            let word = index < 16 ? high : low
            let nibble = UInt8(truncatingIfNeeded: word >> UInt64((15 - index % 16) * 4)) & 0xF
            bytes.append(nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
