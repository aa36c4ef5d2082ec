import JSON
/// A request's optional `"id"`, echoed in its answer so that a client that pipelines requests
/// can match answers without counting lines. A string or an integer, as in JSON-RPC.
package enum ControlRequestID: Sendable, Hashable, CustomStringConvertible {
    case integer(Int64)
    case string(String)

    var json: JSONValue {
        switch self {
        case .integer(let value): .integer(value)
        case .string(let value): .string(value)
        }
    }

    init?(_ json: JSONValue) {
        switch json {
        case .integer(let value): self = .integer(value)
        case .string(let value): self = .string(value)
        default: return nil
        }
    }

    package var description: String { JSONWriter.text(json) }
}
