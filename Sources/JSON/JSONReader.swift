/// Reads exactly one RFC 8259 value from a line of bytes, refusing everything else with the
/// byte offset: trailing commas, duplicate keys, lone surrogates, invalid UTF-8, numbers that
/// do not fit a `Double`, and nesting past ``maximumDepth``. Any local process can write to the
/// control and metrics sockets, and a backend can answer anything, so every way the bytes can
/// be wrong has to be an error, never a trap.
///
/// Foundation's `JSONDecoder` is not used because it is lenient where this must not be (it
/// takes `[1,]` and the first of two equal keys) and its errors do not say where.
public struct JSONReader {
    public static let maximumDepth = 32
    /// The one-letter escapes and the byte each stands for.
    private static let escapes: [UInt8: UInt8] = [
        UInt8(ascii: "\""): 0x22, UInt8(ascii: "\\"): 0x5C, UInt8(ascii: "/"): 0x2F, UInt8(ascii: "b"): 0x08,
        UInt8(ascii: "f"): 0x0C, UInt8(ascii: "n"): 0x0A, UInt8(ascii: "r"): 0x0D, UInt8(ascii: "t"): 0x09,
    ]

    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    private init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    public static func read(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        var reader = JSONReader(bytes)
        let value = try reader.readValue()
        reader.skipSpace()
        guard reader.index == bytes.count else { throw reader.error("more after the value") }
        return value
    }

    public static func read(_ text: some StringProtocol) throws(JSONSyntaxError) -> JSONValue {
        try read(Array(text.utf8))
    }

    private func error(_ reason: String) -> JSONSyntaxError {
        JSONSyntaxError(reason: reason, offset: index)
    }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws(JSONSyntaxError) {
        skipSpace()
        guard peek == byte else { throw error("expected \(what)") }
        index += 1
    }

    private mutating func readValue() throws(JSONSyntaxError) -> JSONValue {
        skipSpace()
        guard let byte = peek else { throw error("expected a value, found the end") }
        switch byte {
        case UInt8(ascii: "{"): return .object(try nested { (reader) throws(JSONSyntaxError) in try reader.readObject() })
        case UInt8(ascii: "["): return .array(try nested { (reader) throws(JSONSyntaxError) in try reader.readArray() })
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "t"): try readWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try readWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try readWord("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try readNumber()
        default: throw error("unexpected character")
        }
    }

    private mutating func nested<Value>(_ body: (inout JSONReader) throws(JSONSyntaxError) -> Value) throws(JSONSyntaxError) -> Value {
        guard depth < Self.maximumDepth else { throw error("nested deeper than \(Self.maximumDepth)") }
        depth += 1
        index += 1
        defer { depth -= 1 }
        return try body(&self)
    }

    private mutating func readObject() throws(JSONSyntaxError) -> JSONObject {
        var object = JSONObject()
        skipSpace()
        if peek == UInt8(ascii: "}") {
            index += 1
            return object
        }
        repeat {
            skipSpace()
            guard peek == UInt8(ascii: "\"") else { throw error("expected a key in quotes") }
            let keyOffset = index
            let key = try readString()
            try expect(UInt8(ascii: ":"), "':' after a key")
            guard object.insert(key, try readValue()) else {
                throw JSONSyntaxError(.duplicateKey, reason: "duplicate key \"\(key)\"", offset: keyOffset)
            }
        } while try separator(closing: UInt8(ascii: "}"))
        return object
    }

    private mutating func readArray() throws(JSONSyntaxError) -> [JSONValue] {
        var elements: [JSONValue] = []
        skipSpace()
        if peek == UInt8(ascii: "]") {
            index += 1
            return elements
        }
        repeat {
            elements.append(try readValue())
        } while try separator(closing: UInt8(ascii: "]"))
        return elements
    }

    /// After a member or element: true at a comma (another must follow), false at the closer.
    private mutating func separator(closing: UInt8) throws(JSONSyntaxError) -> Bool {
        skipSpace()
        switch peek {
        case UInt8(ascii: ",")?:
            index += 1
            return true
        case closing?:
            index += 1
            return false
        default:
            throw error("expected ',' or '\(Character(Unicode.Scalar(closing)))'")
        }
    }

    private mutating func readWord(_ word: String) throws(JSONSyntaxError) {
        for byte in word.utf8 {
            guard peek == byte else { throw error("unknown word (expected \(word))") }
            index += 1
        }
    }

    private mutating func readNumber() throws(JSONSyntaxError) -> JSONValue {
        let start = index
        var isInteger = true
        if peek == UInt8(ascii: "-") { index += 1 }
        if peek == UInt8(ascii: "0") {
            index += 1
        } else if try digitRun() == 0 {
            throw error("expected a digit")
        }
        if peek == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard try digitRun() > 0 else { throw error("expected a digit after '.'") }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            guard try digitRun() > 0 else { throw error("expected a digit in the exponent") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let integer = Int64(text) { return .integer(integer) }
        guard let number = Double(text), number.isFinite else {
            throw JSONSyntaxError(reason: "number \(text.prefix(40)) is too large", offset: start)
        }
        return .number(number)
    }

    private mutating func digitRun() throws(JSONSyntaxError) -> Int {
        let start = index
        while let byte = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
        return index - start
    }

    /// The string's bytes, escapes resolved, checked as UTF-8 once at the closing quote.
    private mutating func readString() throws(JSONSyntaxError) -> String {
        let start = index
        index += 1
        var text: [UInt8] = []
        while true {
            guard let byte = peek else { throw error("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let string = String(validating: text, as: UTF8.self) else {
                    throw JSONSyntaxError(reason: "invalid UTF-8 in a string", offset: start)
                }
                return string
            case UInt8(ascii: "\\"):
                index += 1
                try readEscape(into: &text)
            case 0..<0x20:
                throw error("control character in a string")
            default:
                text.append(byte)
                index += 1
            }
        }
    }

    private mutating func readEscape(into text: inout [UInt8]) throws(JSONSyntaxError) {
        guard let byte = peek else { throw error("unterminated escape") }
        index += 1
        if let plain = Self.escapes[byte] {
            text.append(plain)
            return
        }
        guard byte == UInt8(ascii: "u") else { throw error("unknown escape") }
        let unit = try readHex4()
        var scalarValue = UInt32(unit)
        if (0xD800..<0xDC00).contains(unit) {
            guard peek == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                throw error("high surrogate without its low half")
            }
            index += 2
            let low = try readHex4()
            guard (0xDC00..<0xE000).contains(low) else { throw error("high surrogate without its low half") }
            scalarValue = 0x10000 + (UInt32(unit - 0xD800) << 10) + UInt32(low - 0xDC00)
        }
        guard let scalar = Unicode.Scalar(scalarValue) else { throw error("low surrogate without its high half") }
        text.append(contentsOf: String(Character(scalar)).utf8)
    }

    private mutating func readHex4() throws(JSONSyntaxError) -> UInt16 {
        guard index + 4 <= bytes.count, let value = UInt16(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16),
              bytes[index..<(index + 4)].allSatisfy({ $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "-") })
        else { throw error("expected four hex digits") }
        index += 4
        return value
    }
}
