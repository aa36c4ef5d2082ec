/// Any JSON value, kept as the client sent it.
///
/// Sessions are stored and served back whole (`GET /sessions`), including fields this backend
/// does not know (`detail`, `raw`, future additions), so a session is never narrowed to a
/// struct: only the fields SolidFocus's validation needs are read out of it.
public enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let fields) = self { return fields[key] }
        return nil
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The largest integer every JSON reader holds exactly (2^53 − 1, JavaScript's
    /// `Number.MAX_SAFE_INTEGER`): counts beyond it are refused rather than silently rounded.
    public static let maxSafeInteger: Int64 = 9_007_199_254_740_991

    /// Whole numbers within ±``maxSafeInteger`` only: `12.0` counts, `12.5` does not.
    public var integerValue: Int64? {
        switch self {
        case .integer(let value) where value.magnitude <= Self.maxSafeInteger.magnitude: return value
        case .number(let value) where value.rounded() == value && abs(value) <= Double(Self.maxSafeInteger): return Int64(value)
        default: return nil
        }
    }

    public var isObject: Bool {
        if case .object = self { return true }
        return false
    }

    /// The JSON type's name, for error messages.
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
