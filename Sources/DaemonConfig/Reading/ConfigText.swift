/// The checks a file passes before it is TOML: small, UTF-8, no NUL.
///
/// toml++ reads a C string, so a NUL byte (or a `\u0000` escape inside a key or string, which
/// it turns into one) would silently cut the text short; refusing them keeps what the daemon
/// reads equal to what the operator sees in an editor.
enum ConfigText {
    /// A config is a few kilobytes; anything past this is the wrong file.
    static let maximumBytes = 1 << 20

    static func decode(_ bytes: some Collection<UInt8>, source: String) throws(ConfigError) -> String {
        guard bytes.count <= maximumBytes else { throw tooLarge(bytes.count, source: source) }
        if let offset = bytes.firstIndex(of: 0).map({ bytes.distance(from: bytes.startIndex, to: $0) }) {
            throw ConfigError(.notText, source: source, problem: "contains a NUL byte at offset \(offset): not a text file")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigError(.notText, source: source, problem: "is not UTF-8 text (offset \(invalidUTF8Offset(bytes)))")
        }
        return text
    }

    static func check(_ text: String, source: String) throws(ConfigError) {
        let size = text.utf8.count
        guard size <= maximumBytes else { throw tooLarge(size, source: source) }
        if let index = text.utf8.firstIndex(of: 0) {
            let offset = text.utf8.distance(from: text.utf8.startIndex, to: index)
            throw ConfigError(.notText, source: source, problem: "contains a NUL byte at offset \(offset): not a text file")
        }
        if let range = text.range(of: "\\u0000") ?? text.range(of: "\\U00000000") {
            let line = text[..<range.lowerBound].count(where: { $0 == "\n" }) + 1
            throw ConfigError(.notText, source: source, line: line, problem: "contains an escaped NUL character (\\u0000)")
        }
    }

    private static func tooLarge(_ size: Int, source: String) -> ConfigError {
        ConfigError(.unreadable, source: source, problem: "is \(size) bytes; a config file is at most \(maximumBytes) bytes")
    }

    /// Where the first byte that breaks UTF-8 is, for the error.
    private static func invalidUTF8Offset(_ bytes: some Collection<UInt8>) -> Int {
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput, .error: return offset
            }
        }
    }
}
