/// A JSON value as ftms-bridge reads it: control requests from any local process, a reader's
/// `watch` line, the backend's answers, sessions kept whole by the reference backend.
///
/// Integers are kept apart from other numbers so that a request id or a count goes back out
/// exactly as it came in. Objects keep their members in the order they were written, each key
/// once (``JSONReader`` refuses a repeated key rather than silently keeping one of them).
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    public var object: JSONObject? {
        if case .object(let object) = self { object } else { nil }
    }

    public var isObject: Bool { object != nil }

    public var array: [JSONValue]? {
        if case .array(let elements) = self { elements } else { nil }
    }

    /// A member of an object; nil for a missing key or a value that is not an object.
    public subscript(key: String) -> JSONValue? {
        object?[key]
    }

    public var string: String? {
        if case .string(let text) = self { text } else { nil }
    }

    public var bool: Bool? {
        if case .bool(let flag) = self { flag } else { nil }
    }

    /// Any number, as a `Double`.
    public var double: Double? {
        switch self {
        case .integer(let integer): Double(integer)
        case .number(let number): number
        default: nil
        }
    }

    /// The largest integer every JSON reader holds exactly (2^53 − 1, JavaScript's
    /// `Number.MAX_SAFE_INTEGER`): counts beyond it are refused rather than silently rounded.
    public static let maxSafeInteger: Int64 = 9_007_199_254_740_991

    /// Whole numbers within ±``maxSafeInteger`` only: `12.0` counts, `12.5` does not.
    public var integer: Int64? {
        switch self {
        case .integer(let value) where value.magnitude <= Self.maxSafeInteger.magnitude: value
        case .number(let value) where value.rounded() == value && abs(value) <= Double(Self.maxSafeInteger): Int64(value)
        default: nil
        }
    }

    /// The kind, for "expected a number, got a string" messages.
    public var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .number: "a number"
        case .string: "a string"
        case .array: "a list"
        case .object: "an object"
        }
    }
}

/// An object's members in the order they were written, each key once.
public struct JSONObject: Sendable, Hashable {
    public private(set) var keys: [String] = []
    private var values: [String: JSONValue] = [:]

    public init() {}

    /// A member's value. Setting one replaces the value of a key already there, in its place, or
    /// adds the key at the end; setting nil removes it.
    public subscript(key: String) -> JSONValue? {
        get { values[key] }
        set {
            if let newValue {
                if values.updateValue(newValue, forKey: key) == nil { keys.append(key) }
            } else if values.removeValue(forKey: key) != nil {
                keys.removeAll { $0 == key }
            }
        }
    }

    public var count: Int { keys.count }
    public var isEmpty: Bool { keys.isEmpty }

    /// Adds a member; false (and no change) when the key is already there.
    public mutating func insert(_ key: String, _ value: JSONValue) -> Bool {
        guard values.updateValue(value, forKey: key) == nil else { return false }
        keys.append(key)
        return true
    }

    public var members: [(key: String, value: JSONValue)] {
        keys.compactMap { key in values[key].map { (key, $0) } }
    }

    /// Equal when the same keys hold equal values, in any order: `{"a":1,"b":2}` and
    /// `{"b":2,"a":1}` are one object to every JSON reader.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.values == rhs.values
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(values)
    }
}

extension JSONObject {
    /// An object of `members` in order; a repeated key keeps its first value.
    public init(_ members: [(String, JSONValue)]) {
        for (key, value) in members { _ = insert(key, value) }
    }

    /// An object of a dictionary's members with the keys sorted, so that what is written from
    /// it is the same from one run to the next and two outputs can be diffed.
    public init(sortingKeysOf fields: [String: JSONValue]) {
        for key in fields.keys.sorted() { self[key] = fields[key] }
    }

    public func mapValues(_ transform: (JSONValue) throws -> JSONValue) rethrows -> JSONObject {
        var result = JSONObject()
        for (key, value) in members { result[key] = try transform(value) }
        return result
    }
}
