/// What the floor knows of a session a returning gateway still has a checkpoint of.
public enum SessionFate: Sendable, Hashable {
    /// Another gateway continued it with a newer claim: mark it handed over, never upload it.
    case adopted(by: String)
    /// The broker's state for the machine is known and nobody else took the session: restore it.
    case notAdopted
    /// Nothing of the machine has arrived from the broker yet (wait, up to `hold_unconfirmed`).
    case unknown
}
