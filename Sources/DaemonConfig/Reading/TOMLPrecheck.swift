/// Refuses the malformed TOML that toml++ (TOMLKit 0.6.0's parser) does not refuse safely.
///
/// toml++ guards two of its error paths with `TOML_ASSERT_ASSUME`: an `assert` in a debug
/// build (the process aborts) and an optimiser assumption in a release build (undefined
/// behaviour). Both are reached only by invalid TOML, which this scan finds first:
///
/// - a table header whose first key does not start with a bare-key character or a quote
///   (`[.a]`, `[+]`, `[[ =]]`);
/// - a `}` where an array expects a value (`a = [}`, `a = [1, }`).
///
/// The scan tracks strings, comments and nesting just enough to tell a header from an array
/// and a `}` inside a string from one outside; it judges nothing else, leaving the rest of
/// TOML to toml++. The fuzz tests run the debug build, where a miss would abort them.
struct TOMLPrecheck {
    struct Finding: Error {
        var line: Int
        var message: String
    }

    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    /// Open arrays (`[`) and inline tables (`{`) of the value being read.
    private var nesting: [UInt8] = []

    static func check(_ text: String) throws(Finding) {
        var scan = TOMLPrecheck(bytes: Array(text.utf8))
        try scan.run()
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private mutating func run() throws(Finding) {
        var lineStart = true
        while let byte = peek() {
            switch byte {
            case UInt8(ascii: "\n"):
                line += 1
                lineStart = true
                index += 1
                continue
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                index += 1
                continue
            case UInt8(ascii: "#"):
                skipComment()
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                skipString()
            case UInt8(ascii: "["):
                if nesting.isEmpty && lineStart {
                    try tableHeader()
                } else {
                    index += 1
                    nesting.append(byte)
                    try arrayElement()
                }
            case UInt8(ascii: "{"):
                index += 1
                nesting.append(byte)
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                index += 1
                if !nesting.isEmpty { nesting.removeLast() }
            case UInt8(ascii: ","):
                index += 1
                if nesting.last == UInt8(ascii: "[") { try arrayElement() }
            default:
                index += 1
            }
            lineStart = false
        }
    }

    /// After `[` or `,` in an array: what comes next, past blanks and comments, may not be `}`.
    private mutating func arrayElement() throws(Finding) {
        while let byte = peek() {
            switch byte {
            case UInt8(ascii: "\n"):
                line += 1
                index += 1
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                index += 1
            case UInt8(ascii: "#"):
                skipComment()
            case UInt8(ascii: "}"):
                throw Finding(line: line, message: "expected a value or ']' in an array, saw '}'")
            default:
                return
            }
        }
    }

    /// `[name]` or `[[name]]` at the start of a line: the first key must start like a key.
    private mutating func tableHeader() throws(Finding) {
        index += 1
        if peek() == UInt8(ascii: "[") { index += 1 }
        while peek() == UInt8(ascii: " ") || peek() == UInt8(ascii: "\t") { index += 1 }
        guard let first = peek(), Self.startsKey(first) else {
            throw Finding(line: line, message: "a table header must start with a key (letters, digits, _ or -, or a quoted key)")
        }
        // The rest of the header, to its closing bracket or the end of the line.
        while let byte = peek(), byte != UInt8(ascii: "]"), byte != UInt8(ascii: "\n") {
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") { skipString() } else { index += 1 }
        }
        while peek() == UInt8(ascii: "]") { index += 1 }
    }

    private static func startsKey(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
    }

    private mutating func skipComment() {
        while let byte = peek(), byte != UInt8(ascii: "\n") { index += 1 }
    }

    /// A basic or literal string, single- or multi-line; an unterminated one runs to the end
    /// (toml++ reports it).
    private mutating func skipString() {
        guard let quote = peek() else { return }
        let multiline = index + 2 < bytes.count && bytes[index + 1] == quote && bytes[index + 2] == quote
        index += multiline ? 3 : 1
        while let byte = peek() {
            if byte == UInt8(ascii: "\\") && quote == UInt8(ascii: "\"") {
                if index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "\n") { line += 1 }
                index += 2
                continue
            }
            if byte == UInt8(ascii: "\n") {
                line += 1
                if !multiline { return }
            }
            if byte == quote {
                if !multiline {
                    index += 1
                    return
                }
                if index + 2 < bytes.count && bytes[index + 1] == quote && bytes[index + 2] == quote {
                    index += 3
                    // A multi-line string may end with up to two more quotes.
                    while peek() == quote { index += 1 }
                    return
                }
            }
            index += 1
        }
    }

    private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }
}
