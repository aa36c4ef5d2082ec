/// A TOML value as plain Swift data.
///
/// TOMLKit's values are views into a C++ tree, not `Sendable`, and its table iterator
/// force-unwraps (a key holding an escaped NUL traps it). The file is converted once, by
/// ``TOMLDocument``, into this tree, which the key table then reads without touching TOMLKit.
enum ConfigValue: Sendable, Equatable {
    case string(String)
    case integer(Int)
    case float(Double)
    case boolean(Bool)
    case array([ConfigValue])
    /// Keys in the file's table order (toml++ keeps them sorted).
    case table([(key: String, value: ConfigValue)])
    /// A date, time or date-time: no key takes one.
    case dateOrTime(String)

    static func == (lhs: ConfigValue, rhs: ConfigValue) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.float(let a), .float(let b)): a == b
        case (.boolean(let a), .boolean(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.table(let a), .table(let b)): a.map(\.key) == b.map(\.key) && a.map(\.value) == b.map(\.value)
        case (.dateOrTime(let a), .dateOrTime(let b)): a == b
        default: false
        }
    }

    /// The value as an error quotes it after "got": `-3`, `"6s"`, `an array`.
    var shown: String {
        switch self {
        case .string(let text): OneLine.quoted(text)
        case .integer(let value): String(value)
        case .float(let value): String(value)
        case .boolean(let value): String(value)
        case .array: "an array"
        case .table: "a table"
        case .dateOrTime(let kind): "a \(kind)"
        }
    }
}
