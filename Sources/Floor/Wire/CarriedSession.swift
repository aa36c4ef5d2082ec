public import JSON

/// One adoption, carried on every later checkpoint of the machine (``MirroredCheckpoint/carried``):
/// session `sessionID` was continued by gateway `by` from gateway `from`.
///
/// Why a list on the machine's checkpoint: a machine's topic retains one checkpoint, so a
/// gateway that comes back after the adopted ride has ended, and another has begun, would find
/// only the later session there and could not tell that its own was carried on; it would then
/// upload a ride the adopter uploads too. Each holder copies the list it finds onto the
/// checkpoints it mirrors, so the record outlives the ride, bounded per machine
/// (``CarriedSession/kept``) and cleared by nobody: no retained message per session builds up
/// on the broker.
public struct CarriedSession: Sendable, Hashable {
    /// How many adoptions a machine's checkpoint carries: the newest. A gateway away for more
    /// adoptions of one machine than this (each one needs a gateway's death) falls back to
    /// seed 002 §7.3 at the backend.
    public static let kept = 16

    public var sessionID: String
    /// The gateway the session was taken from.
    public var from: String
    /// The gateway that continued it.
    public var by: String

    public init(sessionID: String, from: String, by: String) {
        self.sessionID = sessionID
        self.from = from
        self.by = by
    }

    /// `list` with `entry` appended unless already there, keeping the newest ``kept``.
    public static func record(_ entry: CarriedSession, onto list: [CarriedSession]) -> [CarriedSession] {
        if list.contains(entry) { return list }
        return Array((list + [entry]).suffix(kept))
    }

    func json() -> JSONValue {
        var object = JSONObject()
        object["session_id"] = .string(sessionID)
        object["from"] = .string(from)
        object["by"] = .string(by)
        return .object(object)
    }
}
