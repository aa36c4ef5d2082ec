public import JSON

/// Who holds a machine, on `PREFIX/floor/machines/ADDRESS/claim` (retained, QoS 1).
///
/// A gateway publishes its claim with ``epoch`` one above the highest it has seen for the machine
/// BEFORE it connects, and on giving the machine up publishes ``holder`` nil with the epoch one
/// higher again. Epochs only grow: a reader ignores a claim below one it has seen, so a gateway
/// back from the dead learns that a newer holder exists rather than overruling it.
public struct MachineClaim: Sendable, Hashable {
    /// Why the claim was made.
    public enum Reason: String, Sendable, Hashable, CaseIterable {
        /// Taken by its home gateway.
        case home
        /// Taken by a stand-in while the home could not hold it (gone, full, or out of range).
        case adopted
        /// Given back between sessions so its home can take it.
        case released
        /// Given up on purpose (`ftms-bridge handover`, or a stop with `handover_on_stop`).
        case handover
    }

    /// The machine's address, upper-cased.
    public var machine: String
    /// Its advertised name, if known: how a `home` list naming it by name finds it.
    public var name: String?
    /// The gateway holding it; nil once released.
    public var holder: String?
    public var epoch: Int
    /// The session open on the machine when the claim was made, if any.
    public var sessionID: String?
    public var reason: Reason

    public init(machine: String, name: String? = nil, holder: String?, epoch: Int, sessionID: String? = nil, reason: Reason) {
        self.machine = machine
        self.name = name
        self.holder = holder
        self.epoch = epoch
        self.sessionID = sessionID
        self.reason = reason
    }

    public var json: JSONValue {
        var object = JSONObject()
        object["machine"] = .string(machine)
        object["name"] = name.map { .string($0) } ?? .null
        object["holder"] = holder.map { .string($0) } ?? .null
        object["epoch"] = .integer(Int64(epoch))
        object["session_id"] = sessionID.map { .string($0) } ?? .null
        object["reason"] = .string(reason.rawValue)
        return .object(object)
    }

    public var payload: [UInt8] { JSONWriter.bytes(json) }

    public init(payload: [UInt8]) throws(FloorWireError) {
        let wire = try WireObject(payload, what: "machine claim")
        machine = try wire.string("machine")
        name = try wire.optionalString("name")
        holder = try wire.optionalString("holder")
        epoch = try wire.integer("epoch")
        sessionID = try wire.optionalString("session_id")
        let reasonText = try wire.string("reason")
        guard let reason = Reason(rawValue: reasonText) else { throw FloorWireError("machine claim: unknown reason \(reasonText)") }
        self.reason = reason
    }
}
