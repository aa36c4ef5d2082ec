/// A JSON value as the control socket reads it: requests from any local process, answers from
/// the daemon. Integers are kept apart from other numbers so that a request id or a count
/// goes back out exactly as it came in.
enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    var object: JSONObject? {
        if case .object(let object) = self { object } else { nil }
    }

    /// The kind, for "expected a number, got a string" messages.
    var kind: String {
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
struct JSONObject: Sendable, Equatable {
    private(set) var keys: [String] = []
    private var values: [String: JSONValue] = [:]

    subscript(key: String) -> JSONValue? { values[key] }

    /// Adds a member; false (and no change) when the key is already there.
    mutating func insert(_ key: String, _ value: JSONValue) -> Bool {
        guard values.updateValue(value, forKey: key) == nil else { return false }
        keys.append(key)
        return true
    }

    var members: [(key: String, value: JSONValue)] {
        keys.compactMap { key in values[key].map { (key, $0) } }
    }
}

extension JSONObject {
    /// An object of `members` in order; a repeated key keeps its first value.
    init(_ members: [(String, JSONValue)]) {
        for (key, value) in members { _ = insert(key, value) }
    }
}
