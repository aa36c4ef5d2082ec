package import Workout

/// What the floor of gateways needs to mirror of this gateway's sessions (issue 37; the
/// broker's `floor/machines/ADDRESS/checkpoint` topic): told by ``SessionSink`` to its observer
/// as each happens, in the order one machine's worker made them.
package enum SessionMirrorEvent: Sendable, Hashable {
    /// A checkpoint of an open session, each one the engine makes: periodic
    /// (`checkpoint_interval`), at each state change (started, paused, resumed) and at the
    /// daemon's stop. Handed out before the store has it: a mirror need not wait for the card.
    case checkpoint(SessionSnapshot)
    /// The session finished and is stored (or held until the store takes writes): `endEpoch`,
    /// its summary's end in unix seconds, is what seed 002 §7.3 compares (the later one wins).
    case finished(sessionID: String, machine: MachineIdentity, endEpoch: Int64, splitFrom: String?)
    /// The session ended below the minimum (contract §5): nothing of it is kept.
    case dropped(sessionID: String, machine: MachineIdentity)

    /// The session the event is about.
    package var sessionID: String {
        switch self {
        case .checkpoint(let snapshot): snapshot.sessionID
        case .finished(let sessionID, _, _, _), .dropped(let sessionID, _): sessionID
        }
    }

    /// Its machine.
    package var machine: MachineIdentity {
        switch self {
        case .checkpoint(let snapshot): snapshot.machine
        case .finished(_, let machine, _, _), .dropped(_, let machine): machine
        }
    }
}
