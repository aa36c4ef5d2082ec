/// An append-only UTF-8 byte buffer for writing JSON without intermediate strings.
///
/// Callers keep one buffer and ``removeAll()`` between messages, so a stream of a million
/// decoded frames reuses the same storage: no allocation per frame. The buffer owns its
/// memory directly and is non-copyable, so an append is one capacity check and a store, with
/// none of the uniqueness checks an `Array` makes on every call (which profiling showed to be
/// a fifth of `ftms-bridge decode`'s time). The appends are inlinable because the FTMS codec,
/// in another module, calls them once per key and digit.
public struct JSONBuffer: ~Copyable, @unchecked Sendable {
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var capacity: Int
    @usableFromInline var used = 0

    public init(capacity: Int = 1024) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    deinit {
        base.deallocate()
    }

    /// How many bytes have been written.
    @inlinable public var count: Int { used }

    public mutating func removeAll() {
        used = 0
    }

    /// The bytes written so far, borrowed.
    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: base, count: used))
    }

    /// A copy of the bytes, for tests and one-off messages.
    public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: used)) }

    /// The text written so far.
    public var string: String { String(decoding: UnsafeBufferPointer(start: base, count: used), as: UTF8.self) }

    /// Takes back the closing brace of the object just written, so that more members can follow
    /// (each opened with ``appendKey(_:first:)``) before it is closed again: how the daemon's
    /// `sample` payload adds the session's figures to a decoded record in place, in one buffer.
    package mutating func reopenObject() {
        precondition(used > 0 && base[used - 1] == UInt8(ascii: "}"), "no object to reopen")
        used -= 1
    }

    /// Makes room for `maximum` bytes and lets `body` write into it; `body` returns how many
    /// it wrote (at most `maximum`), which become part of the buffer. This is how a writer that
    /// knows a bound for a whole message (the FTMS codec) writes it with plain stores.
    @inlinable @inline(__always)
    package mutating func withReservedTail(_ maximum: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        reserve(maximum)
        let written = body(base + used)
        precondition(written <= maximum, "a JSON writer overran its reservation")
        used += written
    }

    @inlinable @inline(__always)
    mutating func reserve(_ additional: Int) {
        if used + additional > capacity { grow(to: used + additional) }
    }

    @usableFromInline
    mutating func grow(to needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: used)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    @inlinable @inline(__always)
    public mutating func append(_ byte: UInt8) {
        reserve(1)
        base[used] = byte
        used += 1
    }

    @inlinable
    public mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { append(contentsOf: $0) }
    }

    @inlinable
    public mutating func append(contentsOf other: UnsafeBufferPointer<UInt8>) {
        guard let source = other.baseAddress, !other.isEmpty else { return }
        reserve(other.count)
        (base + used).update(from: source, count: other.count)
        used += other.count
    }

    public mutating func append(contentsOf other: some Sequence<UInt8>) {
        for byte in other { append(byte) }
    }

    /// The string literal of any `StringProtocol` below, for a `String`: the daemon's case on every
    /// published line (a machine's name, a session id): a string with nothing to escape (no
    /// control character, DEL, quote, backslash, or 0xE2, the lead byte of U+2028/U+2029) is
    /// copied in one go from its UTF-8 storage, where the generic walk reads it byte by byte
    /// through `StringProtocol`'s witnesses. Anything else takes that walk, so the bytes
    /// written are the same either way.
    public mutating func appendString(_ text: String) {
        var text = text
        let copied = text.withUTF8 { bytes -> Bool in
            for byte in bytes where byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0xE2 {
                return false
            }
            reserve(bytes.count + 2)
            append(UInt8(ascii: "\""))
            append(contentsOf: bytes)
            append(UInt8(ascii: "\""))
            return true
        }
        if !copied { appendString(text[...]) }
    }

    /// A JSON string literal, escaped per RFC 8259, on one line whatever it holds: control
    /// characters and DEL as `\uXXXX`, and U+2028/U+2029 too, which end a line for JavaScript
    /// readers (the dashboard's page).
    public mutating func appendString(_ text: some StringProtocol) {
        append(UInt8(ascii: "\""))
        var utf8 = text.utf8.makeIterator()
        var pending: UInt8? = utf8.next()
        while let byte = pending {
            pending = utf8.next()
            switch byte {
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\\"): append("\\\\")
            case UInt8(ascii: "\n"): append("\\n")
            case UInt8(ascii: "\r"): append("\\r")
            case UInt8(ascii: "\t"): append("\\t")
            case 0..<0x20, 0x7F:
                append("\\u00")
                append(Self.hexDigit(byte >> 4))
                append(Self.hexDigit(byte & 0xF))
            case 0xE2 where pending == 0x80:
                // E2 80 A8 and E2 80 A9 are U+2028 and U+2029.
                let second = pending
                pending = utf8.next()
                if let third = pending, third == 0xA8 || third == 0xA9 {
                    pending = utf8.next()
                    append(third == 0xA8 ? "\\u2028" : "\\u2029")
                } else {
                    append(byte)
                    if let second { append(second) }
                }
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

    /// A key with its colon, preceded by a comma unless it opens the object. Keys are static
    /// ASCII identifiers, so the whole `,"key":` is one reservation and one copy.
    @inlinable
    public mutating func appendKey(_ key: StaticString, first: Bool = false) {
        key.withUTF8Buffer { name in
            reserve(name.count + 4)
            if !first {
                base[used] = UInt8(ascii: ",")
                used += 1
            }
            base[used] = UInt8(ascii: "\"")
            if let source = name.baseAddress { (base + used + 1).update(from: source, count: name.count) }
            used += name.count + 1
            base[used] = UInt8(ascii: "\"")
            base[used + 1] = UInt8(ascii: ":")
            used += 2
        }
    }

    /// A member's key, for a writer whose members may each be left out: after a comma unless
    /// the byte before is the object's `{` (no value ends in one).
    @inlinable
    public mutating func appendMemberKey(_ key: StaticString) {
        appendKey(key, first: used > 0 && base[used - 1] == UInt8(ascii: "{"))
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
        var position = used + width - 1
        while position >= used {
            base[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
            position -= 1
        }
        used += width
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
