/// What ``FloorView/decide(for:at:)`` asks of one gateway for one machine. Keeping a machine, or
/// leaving it to another holder, is no decision: nothing to do.
public enum PlacementDecision: Sendable, Hashable {
    public enum ReleaseReason: Sendable, Hashable {
        /// Its home can hold it again and no session is open on it: give it back between sessions.
        case home
    }

    /// Publish ``MachineClaim`` (holder: this gateway, `epoch`, `reason`) and then connect.
    /// `adopt` is the mirrored checkpoint whose session to continue (same session id); `splitFrom`
    /// names the session the replaced claim held that no checkpoint can continue. For a machine
    /// this gateway already has a link to, it reasserts its claim above a newer one (the link is
    /// the lock): publish the claim, nothing to connect.
    case take(machine: String, epoch: Int, adopt: MirroredCheckpoint?, splitFrom: String?, reason: MachineClaim.Reason)
    /// List the machine in `releasing`, publish the claim released (holder nil, the next epoch,
    /// reason `released`), then disconnect.
    case release(machine: String, reason: ReleaseReason)

    public var machine: String {
        switch self {
        case .take(let machine, _, _, _, _), .release(let machine, _): machine
        }
    }
}
