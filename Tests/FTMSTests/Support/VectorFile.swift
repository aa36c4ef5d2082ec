import FTMS
import Foundation
import Testing

/// A frame from a real machine with what its source says it means (`Vectors/*.json`).
struct RealFrame: Sendable, CustomTestStringConvertible {
    let id: String
    let uuid: String
    let hex: String
    let kind: String
    let quirk: String?
    let expected: [String: JSONValue]

    var testDescription: String { "\(id) \(uuid) [\(hex)]" }

    var characteristic: Characteristic? { Characteristic(parsing: uuid) }
    var bytes: [UInt8]? { Hex.bytes(hex) }
    var isGolden: Bool { kind == "golden" }
}

/// A JSON value compared the way the spec means it: numbers by value, lists in order.
enum JSONValue: Sendable, Equatable, Decodable, CustomStringConvertible {
    case number(Double)
    case bool(Bool)
    case string(String)
    case list([JSONValue])
    case object([String: JSONValue])
    case null

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .list(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    var description: String {
        switch self {
        case .number(let value): "\(value)"
        case .bool(let value): "\(value)"
        case .string(let value): "\"\(value)\""
        case .list(let values): "[\(values.map(\.description).joined(separator: ","))]"
        case .object(let object): "{\(object.keys.sorted().joined(separator: ","))}"
        case .null: "null"
        }
    }

    subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }
}

enum Vectors {
    static func load(_ name: String) throws -> [RealFrame] {
        guard let url = Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Vectors") else {
            throw VectorError("missing Vectors/\(name).json")
        }
        let objects = try JSONDecoder().decode([JSONValue].self, from: Data(contentsOf: url))
        return objects.compactMap { object in
            guard let id = object["id"]?.stringValue, let uuid = object["uuid"]?.stringValue,
                let hex = object["hex"]?.stringValue, let kind = object["kind"]?.stringValue,
                case .object(let expected)? = object["expected"]
            else { return nil }
            return RealFrame(id: id, uuid: uuid, hex: hex, kind: kind, quirk: object["quirk"]?.stringValue, expected: expected)
        }
    }

    /// Parses one line of our JSON output into comparable values.
    static func parse(_ json: String) throws -> [String: JSONValue] {
        try JSONDecoder().decode([String: JSONValue].self, from: Data(json.utf8))
    }
}

struct VectorError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
