public import FTMS

/// A message's payload: the bytes of one JSON object, checked once, on the caller's side.
///
/// The daemon composes payloads (with ``JSONBuffer``) and the socket only frames them, but one
/// bad payload would break the framing for every reader at once: a raw newline splits a line,
/// invalid JSON makes readers drop it. So a payload is parsed when it is made, off the event
/// loop, and the fan-out copies nothing and checks nothing.
public struct JSONPayload: Sendable, Equatable {
    /// The object's bytes, without surrounding whitespace.
    public let bytes: [UInt8]
    /// The top-level `"state"` string, if any: `session_state` and `machine` payloads carry one
    /// (contract §7), and the resync state needs to see `finished`.
    let state: String?

    public init(validating bytes: some Collection<UInt8>) throws(PayloadError) {
        let bytes = Array(bytes)
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw .notJSON(error.description)
        }
        guard let members = value.members,
              let start = bytes.firstIndex(of: UInt8(ascii: "{")),
              let end = bytes.lastIndex(of: UInt8(ascii: "}"))
        else { throw .notAnObject }
        let object = bytes[start...end]
        // A raw CR or LF can only be insignificant whitespace here (the parser refuses them in
        // strings), but on the wire it would end the line early.
        self.bytes = object.contains { $0 == 0x0A || $0 == 0x0D } ? object.filter { $0 != 0x0A && $0 != 0x0D } : Array(object)
        var state: String?
        for member in members where member.key == "state" {
            if case .string(let text) = member.value { state = text }
        }
        self.state = state
    }

    public init(validating text: String) throws(PayloadError) {
        try self.init(validating: text.utf8)
    }

    public init(validating json: borrowing JSONBuffer) throws(PayloadError) {
        try self.init(validating: json.bytes)
    }

    /// `{}`.
    public static let empty = JSONPayload(trustedEmpty: ())

    private init(trustedEmpty: Void) {
        bytes = [UInt8(ascii: "{"), UInt8(ascii: "}")]
        state = nil
    }
}

/// Why bytes cannot be a payload.
public enum PayloadError: Error, Sendable, Equatable, CustomStringConvertible {
    case notJSON(String)
    case notAnObject

    public var description: String {
        switch self {
        case .notJSON(let reason): "payload is not JSON: \(reason)"
        case .notAnObject: "payload is not a JSON object"
        }
    }
}
