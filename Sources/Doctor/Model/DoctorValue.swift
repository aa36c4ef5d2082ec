/// The structured facts behind a check, as they appear under `data` in `doctor --json`.
///
/// A closed set of JSON shapes rather than `Any`, so results stay `Sendable` and `Equatable`
/// and tests can compare them directly.
public enum DoctorValue: Sendable, Hashable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case null
    case list([DoctorValue])
    case object([String: DoctorValue])

    /// `value` when present, JSON `null` when not.
    public static func optional(_ value: String?) -> DoctorValue {
        value.map(DoctorValue.string) ?? .null
    }

    public static func optional(_ value: Int?) -> DoctorValue {
        value.map(DoctorValue.int) ?? .null
    }

    public var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var int: Int? {
        if case .int(let value) = self { return value }
        return nil
    }

    public var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    public subscript(key: String) -> DoctorValue? {
        if case .object(let fields) = self { return fields[key] }
        return nil
    }
}

extension DoctorValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: DoctorValue...) { self = .list(elements) }
    public init(dictionaryLiteral elements: (String, DoctorValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
