public import JSON

/// A message's payload: the bytes of one JSON object, checked once, on the caller's side.
///
/// One bad payload would break the framing for every reader at once: a raw newline splits a
/// line, invalid JSON makes readers drop it. So bytes from elsewhere are parsed when the payload
/// is made (``init(validating:)``), and the fan-out copies nothing and checks nothing. The
/// daemon's own payloads are written by ``JSONBuffer``, which cannot write a newline or invalid
/// JSON, so they are taken as written (``init(written:state:)``) and parsed only in debug builds:
/// a notification is never encoded and then parsed again.
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
            value = try JSONReader.read(bytes)
        } catch {
            throw .notJSON(error.description)
        }
        guard let object = value.object,
              let start = bytes.firstIndex(of: UInt8(ascii: "{")),
              let end = bytes.lastIndex(of: UInt8(ascii: "}"))
        else { throw .notAnObject }
        let text = bytes[start...end]
        // A raw CR or LF can only be insignificant whitespace here (the parser refuses them in
        // strings), but on the wire it would end the line early.
        self.bytes = text.contains { $0 == 0x0A || $0 == 0x0D } ? text.filter { $0 != 0x0A && $0 != 0x0D } : Array(text)
        state = object["state"]?.string
    }

    /// An object the caller wrote whole with ``JSONBuffer`` (an opening brace, members written
    /// with its appends, a closing brace); `state` is its top-level `"state"` string, if any.
    package init(written json: borrowing JSONBuffer, state: String? = nil) {
        bytes = json.bytes
        self.state = state
        assert((try? JSONPayload(validating: bytes)).map { $0 == self } ?? false, "a payload the daemon wrote is not what it says: \(json.string)")
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
