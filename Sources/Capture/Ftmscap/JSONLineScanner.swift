/// A forgiving, allocation-free cursor over one JSON object on one line.
///
/// `.ftmscap` readers see files written by other tools, so this accepts anything JSON
/// allows (any key order, unknown keys and nested values of any shape, escapes) and pulls
/// out only the members asked for, as byte ranges into the line: no dictionary, no string
/// per key. Broken JSON stops with the column where it broke.
struct JSONLineScanner {
    struct Failure: Error {
        /// 1-based.
        let column: Int
        let reason: String
    }

    /// A string token: the bytes between the quotes, still escaped if `escaped`.
    struct Text {
        let range: Range<Int>
        let escaped: Bool
    }

    let line: UnsafeBufferPointer<UInt8>
    private(set) var index = 0

    init(_ line: UnsafeBufferPointer<UInt8>) {
        self.line = line
    }

    /// Nesting deeper than this is not a capture; refusing it bounds the work per line.
    static let maximumDepth = 64

    var atEnd: Bool {
        mutating get {
            skipSpace()
            return index >= line.count
        }
    }

    @inline(__always)
    mutating func skipSpace() {
        while index < line.count {
            switch line[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n"): index += 1
            default: return
            }
        }
    }

    @inline(__always)
    mutating func peek() -> UInt8? {
        skipSpace()
        return index < line.count ? line[index] : nil
    }

    func failure(_ reason: String, at position: Int? = nil) -> Failure {
        Failure(column: (position ?? index) + 1, reason: reason)
    }

    @inline(__always)
    mutating func expect(_ character: UInt8, _ what: String) throws(Failure) {
        guard peek() == character else {
            throw failure(index >= line.count ? "line ends where \(what) should be" : "expected \(what)")
        }
        index += 1
    }

    /// Nothing but white space may follow the object, except the comma of a file written as
    /// one JSON array with an object per line.
    mutating func expectLineEnd() throws(Failure) {
        if peek() == UInt8(ascii: ",") { index += 1 }
        guard atEnd else { throw failure("unexpected text after the object") }
    }

    /// The next member's key, consuming the `,` before it and the `:` after it; `nil` once
    /// the object's `}` is consumed. `first` tracks whether a comma is due.
    @inline(__always)
    mutating func nextKey(_ first: inout Bool) throws(Failure) -> Text? {
        guard let next = peek() else { throw failure("line ends inside an object") }
        if next == UInt8(ascii: "}") {
            index += 1
            return nil
        }
        if !first {
            try expect(UInt8(ascii: ","), "',' or '}' after a value")
            if peek() == UInt8(ascii: "}") {  // a trailing comma, which JSON forbids but people write
                index += 1
                return nil
            }
        }
        first = false
        guard peek() == UInt8(ascii: "\"") else {
            throw failure(index >= line.count ? "line ends inside an object" : "expected a quoted key")
        }
        let key = try string()
        try expect(UInt8(ascii: ":"), "':' after a key")
        return key
    }

    /// A string value (the cursor must be at its opening quote).
    @inline(__always)
    mutating func string() throws(Failure) -> Text {
        guard peek() == UInt8(ascii: "\"") else { throw failure("expected a string") }
        index += 1
        let start = index
        var escaped = false
        while index < line.count {
            let character = line[index]
            if character == UInt8(ascii: "\"") {
                index += 1
                return Text(range: start..<index - 1, escaped: escaped)
            }
            if character == UInt8(ascii: "\\") {
                escaped = true
                index += 1
            }
            index += 1
        }
        throw failure("line ends inside a string", at: start - 1)
    }

    /// The bytes of a number, `true`, `false` or `null`: everything up to the next delimiter.
    @inline(__always)
    mutating func bareValue() throws(Failure) -> Range<Int> {
        skipSpace()
        let start = index
        while index < line.count {
            switch line[index] {
            case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: " "), UInt8(ascii: "\t"),
                UInt8(ascii: "\r"):
                return start..<index
            case UInt8(ascii: "\""), UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: ":"):
                throw failure("unexpected character in a value")
            default:
                index += 1
            }
        }
        guard index > start else { throw failure("line ends where a value should be") }
        return start..<index
    }

    /// Skips one value of any shape, nested or not.
    mutating func skipValue() throws(Failure) {
        switch peek() {
        case UInt8(ascii: "\"")?:
            _ = try string()
        case UInt8(ascii: "{")?, UInt8(ascii: "[")?:
            try skipContainer()
        case nil:
            throw failure("line ends where a value should be")
        default:
            let range = try bareValue()
            guard !range.isEmpty else { throw failure("expected a value") }
        }
    }

    private mutating func skipContainer() throws(Failure) {
        var closers: [UInt8] = []
        repeat {
            guard let character = peek() else { throw failure("line ends inside a nested value") }
            switch character {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard closers.count < Self.maximumDepth else { throw failure("values nested too deeply") }
                closers.append(character == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]"))
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard closers.last == character else { throw failure("mismatched '\(Character(UnicodeScalar(character)))'") }
                closers.removeLast()
                index += 1
            case UInt8(ascii: "\""):
                _ = try string()
            case UInt8(ascii: ","), UInt8(ascii: ":"):
                index += 1
            default:
                _ = try bareValue()
            }
        } while !closers.isEmpty
    }

    /// Whether a raw (unescaped) token spells `name` exactly.
    @inline(__always)
    func matches(_ text: Text, _ name: StaticString) -> Bool {
        guard !text.escaped, text.range.count == name.utf8CodeUnitCount else { return false }
        let bytes = name.utf8Start
        var offset = 0
        for position in text.range {
            guard line[position] == bytes[offset] else { return false }
            offset += 1
        }
        return true
    }

    /// The bytes of a token or range, borrowed.
    func bytes(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: line[range])
    }

    /// A string token's value with its escapes (`\n`, `\"`, `\u00e9`, surrogate pairs) decoded.
    func decode(_ text: Text) throws(Failure) -> String {
        guard text.escaped else { return String(decoding: bytes(text.range), as: UTF8.self) }
        var output: [UInt8] = []
        var position = text.range.lowerBound
        func hex4(_ at: Int) throws(Failure) -> UInt32 {
            guard at + 4 <= text.range.upperBound else { throw failure("short \\u escape", at: at) }
            var value: UInt32 = 0
            for offset in 0..<4 {
                guard let nibble = AttributeUUID.nibble(line[at + offset]) else { throw failure("bad \\u escape", at: at) }
                value = value << 4 | UInt32(nibble)
            }
            return value
        }
        while position < text.range.upperBound {
            let character = line[position]
            position += 1
            guard character == UInt8(ascii: "\\") else {
                output.append(character)
                continue
            }
            guard position < text.range.upperBound else { throw failure("string ends in a backslash", at: position) }
            let escape = line[position]
            position += 1
            switch escape {
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "u"):
                var scalar = try hex4(position)
                position += 4
                if (0xD800..<0xDC00).contains(scalar), position + 6 <= text.range.upperBound,
                    line[position] == UInt8(ascii: "\\"), line[position + 1] == UInt8(ascii: "u")
                {
                    let low = try hex4(position + 2)
                    if (0xDC00..<0xE000).contains(low) {
                        scalar = 0x10000 + (scalar - 0xD800) << 10 + (low - 0xDC00)
                        position += 6
                    }
                }
                output.append(contentsOf: String(Character(UnicodeScalar(scalar) ?? "\u{FFFD}")).utf8)
            default: output.append(escape)  // `\"`, `\\`, `\/`, and leniently anything else
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
