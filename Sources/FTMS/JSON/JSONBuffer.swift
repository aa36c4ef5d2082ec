/// An append-only UTF-8 byte buffer for writing JSON without intermediate strings.
///
/// Callers keep one buffer and ``removeAll(keepingCapacity:)`` between messages, so a stream
/// of a million decoded frames reuses the same storage: no allocation per frame.
public struct JSONBuffer: Sendable {
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 1024) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public mutating func removeAll(keepingCapacity: Bool = true) {
        bytes.removeAll(keepingCapacity: keepingCapacity)
    }

    public var count: Int { bytes.count }

    @inline(__always)
    public mutating func append(_ byte: UInt8) {
        bytes.append(byte)
    }

    public mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    public mutating func append(contentsOf other: some Sequence<UInt8>) {
        bytes.append(contentsOf: other)
    }

    /// A JSON string literal, escaped per RFC 8259.
    public mutating func appendString(_ text: some StringProtocol) {
        append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\\"): append("\\\\")
            case UInt8(ascii: "\n"): append("\\n")
            case UInt8(ascii: "\r"): append("\\r")
            case UInt8(ascii: "\t"): append("\\t")
            case 0..<0x20:
                append("\\u00")
                append(Self.hexDigit(byte >> 4))
                append(Self.hexDigit(byte & 0xF))
            default: append(byte)
            }
        }
        append(UInt8(ascii: "\""))
    }

    public mutating func appendString(_ text: StaticString) {
        // Static names are plain ASCII identifiers; nothing needs escaping.
        append(UInt8(ascii: "\""))
        append(text)
        append(UInt8(ascii: "\""))
    }

    public mutating func appendInteger(_ value: some BinaryInteger) {
        if value < 0 {
            append(UInt8(ascii: "-"))
            appendDigits(UInt64(value.magnitude))
        } else {
            appendDigits(UInt64(value))
        }
    }

    /// `raw` × `scale` in its shortest exact decimal form: 1173 at 0.01 is `11.73`,
    /// 1100 is `11`, 25 at 0.5 is `12.5`. No floating point is involved.
    public mutating func appendFixedPoint(_ raw: Int32, scale: Scale) {
        if raw < 0 { append(UInt8(ascii: "-")) }
        let magnitude = UInt64(raw.magnitude)
        if scale == .half {
            appendDigits(magnitude / 2)
            if magnitude % 2 == 1 { append(".5") }
            return
        }
        let decimals = scale.decimals
        guard decimals > 0 else {
            appendDigits(magnitude)
            return
        }
        var divisor: UInt64 = 1
        for _ in 0..<decimals { divisor *= 10 }
        appendDigits(magnitude / divisor)
        var fraction = magnitude % divisor
        guard fraction != 0 else { return }
        append(UInt8(ascii: "."))
        var width = decimals
        while fraction % 10 == 0 {
            fraction /= 10
            width -= 1
        }
        var digits = InlineArray<4, UInt8>(repeating: UInt8(ascii: "0"))
        var index = width - 1
        while index >= 0 {
            digits[index] = UInt8(ascii: "0") + UInt8(fraction % 10)
            fraction /= 10
            index -= 1
        }
        for position in 0..<width { append(digits[position]) }
    }

    /// A key with its colon, preceded by a comma unless it opens the object.
    public mutating func appendKey(_ key: StaticString, first: Bool = false) {
        if !first { append(UInt8(ascii: ",")) }
        appendString(key)
        append(UInt8(ascii: ":"))
    }

    private mutating func appendDigits(_ value: UInt64) {
        if value < 10 {
            append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        var digits = InlineArray<20, UInt8>(repeating: 0)
        var count = 0
        var rest = value
        while rest > 0 {
            digits[count] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
            count += 1
        }
        while count > 0 {
            count -= 1
            append(digits[count])
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
