/// Writes JSON on one line: the socket's framing is one message per line, so nothing written
/// here may contain a raw newline, whatever a string holds.
enum JSONWriter {
    static func text(_ value: JSONValue) -> String {
        var text = ""
        write(value, into: &text)
        return text
    }

    static func write(_ value: JSONValue, into text: inout String) {
        switch value {
        case .null: text += "null"
        case .bool(let flag): text += flag ? "true" : "false"
        case .integer(let integer): text += String(integer)
        case .number(let number): text += number.description
        case .string(let string): writeString(string, into: &text)
        case .array(let elements):
            text += "["
            for (position, element) in elements.enumerated() {
                if position > 0 { text += "," }
                write(element, into: &text)
            }
            text += "]"
        case .object(let object):
            text += "{"
            for (position, member) in object.members.enumerated() {
                if position > 0 { text += "," }
                writeString(member.key, into: &text)
                text += ":"
                write(member.value, into: &text)
            }
            text += "}"
        }
    }

    static func writeString(_ string: String, into text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case "\u{0}"..."\u{1F}", "\u{7F}", "\u{2028}", "\u{2029}":
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }

    static func quoted(_ string: String) -> String {
        var text = ""
        writeString(string, into: &text)
        return text
    }
}
