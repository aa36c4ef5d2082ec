/// A JSON value as the dashboard reads one: the envelopes of contract §7, whose payload keys vary
/// by type and grow without a version change, so they are kept as a tree rather than a struct.
///
/// `Sendable` and `Codable`, so a decoded envelope crosses actors and a tile can carry a
/// payload back out unchanged.
public enum FloorJSON: Sendable, Equatable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([FloorJSON])
    case object([String: FloorJSON])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([FloorJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: FloorJSON].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    public subscript(key: String) -> FloorJSON? {
        if case .object(let members) = self { members[key] } else { nil }
    }

    public var string: String? {
        if case .string(let value) = self { value } else { nil }
    }

    public var number: Double? {
        if case .number(let value) = self { value } else { nil }
    }

    public var array: [FloorJSON]? {
        if case .array(let value) = self { value } else { nil }
    }
}
