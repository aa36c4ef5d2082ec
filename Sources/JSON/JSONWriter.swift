/// Writes a ``JSONValue`` on one line, through ``JSONBuffer``'s escaping: the sockets' framing is
/// one message per line, so nothing written here may contain a raw newline, whatever a string
/// holds. Objects keep their members' order.
public enum JSONWriter {
    public static func text(_ value: JSONValue) -> String {
        var json = JSONBuffer(capacity: 256)
        json.appendValue(value)
        return json.string
    }

    public static func bytes(_ value: JSONValue) -> [UInt8] {
        var json = JSONBuffer(capacity: 256)
        json.appendValue(value)
        return json.bytes
    }

    /// `string` as a JSON string literal.
    public static func quoted(_ string: String) -> String {
        var json = JSONBuffer(capacity: string.utf8.count + 2)
        json.appendString(string)
        return json.string
    }
}

extension JSONBuffer {
    public mutating func appendValue(_ value: JSONValue) {
        switch value {
        case .null: append("null")
        case .bool(let flag): append(flag ? "true" : "false")
        case .integer(let integer): appendInteger(integer)
        case .number(let number):
            // JSON has no NaN or infinity; a value that cannot be written is no value.
            if number.isFinite { append(contentsOf: number.description.utf8) } else { append("null") }
        case .string(let string): appendString(string)
        case .array(let elements):
            append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { append(UInt8(ascii: ",")) }
                appendValue(element)
            }
            append(UInt8(ascii: "]"))
        case .object(let object):
            append(UInt8(ascii: "{"))
            for (position, member) in object.members.enumerated() {
                if position > 0 { append(UInt8(ascii: ",")) }
                appendString(member.key)
                append(UInt8(ascii: ":"))
                appendValue(member.value)
            }
            append(UInt8(ascii: "}"))
        }
    }
}
