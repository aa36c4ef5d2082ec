#if canImport(Glibc)
import Glibc
#endif

/// An append-only UTF-8 byte buffer for writing JSON without intermediate strings.
///
/// Callers keep one buffer and ``removeAll()`` between messages, so a stream of a million
/// decoded frames reuses the same storage: no allocation per frame. The buffer owns its
/// memory directly and is non-copyable, so an append is one capacity check and a store, with
/// none of the uniqueness checks an `Array` makes on every call (which profiling showed to be
/// a fifth of `ftms-bridge decode`'s time).
public struct JSONBuffer: ~Copyable, @unchecked Sendable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    public private(set) var count = 0

    public init(capacity: Int = 1024) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    deinit {
        base.deallocate()
    }

    public mutating func removeAll() {
        count = 0
    }

    /// The bytes written so far, borrowed.
    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// A copy of the bytes, for tests and one-off messages.
    public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    /// The text written so far.
    public var string: String { String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self) }

    /// Makes room for `maximum` bytes and lets `body` write into it; `body` returns how many
    /// it wrote (at most `maximum`), which become part of the buffer.
    @inline(__always)
    mutating func withReservedTail(_ maximum: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        reserve(maximum)
        let written = body(base + count)
        precondition(written <= maximum, "a JSON writer overran its reservation")
        count += written
    }

    @inline(__always)
    private mutating func reserve(_ additional: Int) {
        if count + additional > capacity { grow(to: count + additional) }
    }

    private mutating func grow(to needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    @inline(__always)
    public mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    public mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { append(contentsOf: $0) }
    }

    public mutating func append(contentsOf other: UnsafeBufferPointer<UInt8>) {
        guard let source = other.baseAddress, !other.isEmpty else { return }
        reserve(other.count)
        (base + count).update(from: source, count: other.count)
        count += other.count
    }

    public mutating func append(contentsOf other: some Sequence<UInt8>) {
        for byte in other { append(byte) }
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
        appendReserved(maximum: 16) { $0.fixedPoint(raw, scale: scale) }
    }

    /// A key with its colon, preceded by a comma unless it opens the object. Keys are static
    /// ASCII identifiers, so the whole `,"key":` is one reservation and one copy.
    public mutating func appendKey(_ key: StaticString, first: Bool = false) {
        key.withUTF8Buffer { name in
            reserve(name.count + 4)
            if !first {
                base[count] = UInt8(ascii: ",")
                count += 1
            }
            base[count] = UInt8(ascii: "\"")
            if let source = name.baseAddress { (base + count + 1).update(from: source, count: name.count) }
            count += name.count + 1
            base[count] = UInt8(ascii: "\"")
            base[count + 1] = UInt8(ascii: ":")
            count += 2
        }
    }

    /// Writes the decimal digits of `value` straight into the buffer, last digit first.
    /// FTMS values fit 32 bits, where division by ten is cheaper, so that is the usual path.
    private mutating func appendDigits(_ value: UInt64) {
        guard value <= UInt64(UInt32.max) else {
            appendDigits(value / 1_000_000_000)
            appendDigitsPadded(UInt32(value % 1_000_000_000), width: 9)
            return
        }
        let small = UInt32(value)
        var width = 1
        var bound: UInt32 = 10
        while width < 10, small >= bound {
            width += 1
            bound = bound &* 10
        }
        appendDigitsPadded(small, width: width)
    }

    private mutating func appendDigitsPadded(_ value: UInt32, width: Int) {
        reserve(width)
        var rest = value
        var position = count + width - 1
        while position >= count {
            base[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
            position -= 1
        }
        count += width
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
