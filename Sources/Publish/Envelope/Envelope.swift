import JSON
import FTMS

/// The contract §7 envelope's header: everything of a line except its payload.
///
/// Keys are written in one fixed order (`type`, `machine`, `sessionId`, `timestamp`, `seq`,
/// `version`, `payload`) so that a line's bytes are a function of its contents, which the tests
/// pin and a `grep` can rely on. `machine` and `sessionId` are `null` when the message is not
/// about one: readers of contract §7 expect the keys to be there.
struct Envelope {
    static let version: StaticString = "1.0"

    var type: MessageType
    var machine: String?
    var sessionID: String?
    var timestamp: UnixMilliseconds
    var seq: UInt64

    /// Writes `{"type":…,…,"payload":` and leaves the object open for the payload and `}`.
    func writeHeader(into json: inout JSONBuffer) {
        json.append(UInt8(ascii: "{"))
        json.appendKey("type", first: true)
        json.appendString(type.rawValue)
        json.appendKey("machine")
        json.appendOptionalString(machine)
        json.appendKey("sessionId")
        json.appendOptionalString(sessionID)
        json.appendKey("timestamp")
        timestamp.writeJSON(into: &json)
        json.appendKey("seq")
        json.appendInteger(seq)
        json.appendKey("version")
        json.appendString(Self.version)
        json.appendKey("payload")
    }
}

extension JSONBuffer {
    mutating func appendOptionalString(_ text: String?) {
        if let text { appendString(text) } else { append("null") }
    }
}
