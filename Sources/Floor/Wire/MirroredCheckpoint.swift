public import JSON
public import Workout

/// An open session's checkpoint mirrored to `PREFIX/floor/machines/ADDRESS/checkpoint` (retained,
/// QoS 1) by the machine's holder at each checkpoint the engine makes and when the session ends,
/// so that a neighbour adopting the machine continues the same session, and a gateway coming back
/// learns that its session was adopted.
public struct MirroredCheckpoint: Sendable, Hashable {
    public enum State: String, Sendable, Hashable, CaseIterable {
        /// The session is open on ``MirroredCheckpoint/holder``.
        case open
        /// The session ended there (``MirroredCheckpoint/endEpoch`` says when).
        case finished
        /// The holder gave the session to another gateway and keeps no part of it.
        case handedOver = "handed_over"
    }

    /// The machine's address, upper-cased.
    public var machine: String
    public var holder: String
    /// The holder's claim epoch when it mirrored this.
    public var epoch: Int
    public var sessionID: String
    public var state: State
    /// The session as the holder's engine froze it; nil once finished or handed over.
    public var snapshot: SessionSnapshot?
    /// The session's end, seconds since 1970, once finished.
    public var endEpoch: Int?
    /// The session id this one continues without its data (the ride split: no checkpoint of the
    /// first part reached the broker).
    public var splitFrom: String?
    /// The machine's adoptions, oldest first, as the holder found them on the broker and added
    /// to (``CarriedSession``): how a gateway back after a later ride learns its session was
    /// carried on.
    public var carried: [CarriedSession]

    public init(
        machine: String, holder: String, epoch: Int, sessionID: String, state: State, snapshot: SessionSnapshot? = nil,
        endEpoch: Int? = nil, splitFrom: String? = nil, carried: [CarriedSession] = []
    ) {
        self.machine = machine
        self.holder = holder
        self.epoch = epoch
        self.sessionID = sessionID
        self.state = state
        self.snapshot = snapshot
        self.endEpoch = endEpoch
        self.splitFrom = splitFrom
        self.carried = carried
    }

    /// Fails only for a snapshot `Codable` cannot write (a number JSON has no form for).
    public func json() throws(FloorWireError) -> JSONValue {
        var object = JSONObject()
        object["machine"] = .string(machine)
        object["holder"] = .string(holder)
        object["epoch"] = .integer(Int64(epoch))
        object["session_id"] = .string(sessionID)
        object["state"] = .string(state.rawValue)
        object["snapshot"] = try snapshot.map { snapshot throws(FloorWireError) in try SnapshotJSON.value(snapshot) } ?? .null
        object["end_epoch"] = endEpoch.map { .integer(Int64($0)) } ?? .null
        object["split_from"] = splitFrom.map { .string($0) } ?? .null
        // Left out when empty: most machines never saw an adoption, and checkpoints are the floor's traffic.
        if !carried.isEmpty { object["carried"] = .array(carried.map { $0.json() }) }
        return .object(object)
    }

    public func payload() throws(FloorWireError) -> [UInt8] {
        JSONWriter.bytes(try json())
    }

    public init(payload: [UInt8]) throws(FloorWireError) {
        let wire = try WireObject(payload, what: "mirrored checkpoint")
        machine = try wire.string("machine")
        holder = try wire.string("holder")
        epoch = try wire.integer("epoch")
        sessionID = try wire.string("session_id")
        let stateText = try wire.string("state")
        guard let state = State(rawValue: stateText) else { throw FloorWireError("mirrored checkpoint: unknown state \(stateText)") }
        self.state = state
        if let value = wire.object["snapshot"], value != .null {
            snapshot = try SnapshotJSON.snapshot(value)
        } else {
            snapshot = nil
        }
        endEpoch = try wire.optionalInteger("end_epoch")
        splitFrom = try wire.optionalString("split_from")
        // Missing in a checkpoint from a gateway that predates the list: none carried.
        carried = try wire.objects("carried").map { entry throws(FloorWireError) in
            CarriedSession(sessionID: try entry.string("session_id"), from: try entry.string("from"), by: try entry.string("by"))
        }
    }
}
