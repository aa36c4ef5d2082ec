/// Makes text from a config file safe to quote in a one-line error.
enum OneLine {
    /// Longest quoted value; a 10 kB string in a log line hides the message.
    static let quoteLimit = 60

    /// Control characters (newlines above all) become visible escapes, so an error is always
    /// exactly one line.
    static func flatten(_ text: String) -> String {
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if scalar.properties.generalCategory == .control || scalar == "\u{2028}" || scalar == "\u{2029}" {
                    result += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }

    /// A string value as the error quotes it: in double quotes, cut at ``quoteLimit`` characters.
    static func quoted(_ text: String) -> String {
        guard text.count > quoteLimit else { return "\"\(text)\"" }
        return "\"\(text.prefix(quoteLimit))…\" (\(text.count) characters)"
    }
}
