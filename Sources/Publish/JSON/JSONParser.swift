/// A strict RFC 8259 parser for one JSON value in a byte string.
///
/// Hand-written rather than Foundation's so that the module stays Foundation-free like the
/// codec it builds on, and so that every way input can be wrong is a thrown error with an
/// offset: the bytes come from any local process (a reader's line) and must never trap.
/// Nesting is capped because recursion depth is the one resource a 4 KiB line could exhaust.
/// UTF-8 is validated up front, once, so string scanning can copy bytes without decoding.
struct JSONParser: ~Copyable {
    static let maximumDepth = 64

    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0
    private var depth = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The one value `bytes` holds, with only whitespace around it.
    static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        guard isValidUTF8(bytes) else { throw JSONSyntaxError(reason: "not valid UTF-8", offset: 0) }
        return try bytes.withUnsafeBufferPointer { (buffer) throws(JSONSyntaxError) -> JSONValue in
            var parser = JSONParser(buffer)
            let value = try parser.value()
            parser.skipWhitespace()
            guard parser.position == buffer.count else { throw parser.failure("unexpected data after the value") }
            return value
        }
    }

    /// Scalar by scalar, without building a `String` of the whole input.
    private static func isValidUTF8(_ bytes: [UInt8]) -> Bool {
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    private func failure(_ reason: String) -> JSONSyntaxError {
        JSONSyntaxError(reason: reason, offset: position)
    }

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { position += 1 }
    }

    private mutating func value() throws(JSONSyntaxError) -> JSONValue {
        skipWhitespace()
        guard let byte = current else { throw failure("expected a value, found the end") }
        switch byte {
        case UInt8(ascii: "{"): return try nested { (parser) throws(JSONSyntaxError) in try parser.object() }
        case UInt8(ascii: "["): return try nested { (parser) throws(JSONSyntaxError) in try parser.array() }
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number(); return .number
        default: throw failure("unexpected character")
        }
    }

    private mutating func nested(_ body: (inout Self) throws(JSONSyntaxError) -> JSONValue) throws(JSONSyntaxError) -> JSONValue {
        guard depth < Self.maximumDepth else { throw failure("nested deeper than \(Self.maximumDepth)") }
        depth += 1
        defer { depth -= 1 }
        return try body(&self)
    }

    private mutating func object() throws(JSONSyntaxError) -> JSONValue {
        position += 1
        var members: [JSONMember] = []
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            position += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw failure("expected a string key") }
            let key = try string()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw failure("expected ':'") }
            position += 1
            members.append(JSONMember(key: key, value: try value()))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"): position += 1; return .object(members)
            default: throw failure("expected ',' or '}'")
            }
        }
    }

    private mutating func array() throws(JSONSyntaxError) -> JSONValue {
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            elements.append(try value())
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"): position += 1; return .array(elements)
            default: throw failure("expected ',' or ']'")
            }
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count else { throw failure("unexpected end in a literal") }
        for index in 0..<count where bytes[position + index] != word.utf8Start[index] {
            throw failure("unknown literal")
        }
        position += count
    }

    private mutating func number() throws(JSONSyntaxError) {
        if current == UInt8(ascii: "-") { position += 1 }
        if current == UInt8(ascii: "0") {
            position += 1
        } else {
            guard try digits() > 0 else { throw failure("expected a digit") }
        }
        if current == UInt8(ascii: ".") {
            position += 1
            guard try digits() > 0 else { throw failure("expected a digit after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard try digits() > 0 else { throw failure("expected an exponent") }
        }
    }

    private mutating func digits() throws(JSONSyntaxError) -> Int {
        let start = position
        while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { position += 1 }
        return position - start
    }

    /// Strings without escapes (nearly all) are made straight from the input bytes; only an
    /// escape needs a buffer to build the text in.
    private mutating func string() throws(JSONSyntaxError) -> String {
        position += 1
        let start = position
        while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\"), byte >= 0x20 { position += 1 }
        if current == UInt8(ascii: "\"") {
            position += 1
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<(position - 1)]), as: UTF8.self)
        }
        var text = Array(bytes[start..<position])
        while true {
            guard let byte = current else { throw failure("unterminated string") }
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: text, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try escape(into: &text)
            case 0..<0x20:
                position -= 1
                throw failure("control character in a string")
            default:
                text.append(byte)
            }
        }
    }

    private mutating func escape(into text: inout [UInt8]) throws(JSONSyntaxError) {
        guard let byte = current else { throw failure("unterminated escape") }
        position += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(byte)
        case UInt8(ascii: "b"): text.append(0x08)
        case UInt8(ascii: "f"): text.append(0x0C)
        case UInt8(ascii: "n"): text.append(0x0A)
        case UInt8(ascii: "r"): text.append(0x0D)
        case UInt8(ascii: "t"): text.append(0x09)
        case UInt8(ascii: "u"): text.append(contentsOf: String(try unicodeEscape()).utf8)
        default: throw failure("unknown escape")
        }
    }

    /// `\uXXXX`, joining a UTF-16 surrogate pair; a lone surrogate is an error, not U+FFFD,
    /// because the parser is strict everywhere else too.
    private mutating func unicodeEscape() throws(JSONSyntaxError) -> Character {
        let first = try hexQuad()
        var scalar = UInt32(first)
        if (0xD800..<0xDC00).contains(first) {
            guard current == UInt8(ascii: "\\") else { throw failure("lone surrogate") }
            position += 1
            guard current == UInt8(ascii: "u") else { throw failure("lone surrogate") }
            position += 1
            let second = try hexQuad()
            guard (0xDC00..<0xE000).contains(second) else { throw failure("lone surrogate") }
            scalar = 0x10000 + ((UInt32(first) - 0xD800) << 10) + (UInt32(second) - 0xDC00)
        }
        guard let unicode = Unicode.Scalar(scalar) else { throw failure("lone surrogate") }
        return Character(unicode)
    }

    private mutating func hexQuad() throws(JSONSyntaxError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard let byte = current else { throw failure("unterminated escape") }
            let nibble: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = byte - UInt8(ascii: "A") + 10
            default: throw failure("expected a hex digit")
            }
            value = value << 4 | UInt16(nibble)
            position += 1
        }
        return value
    }
}
