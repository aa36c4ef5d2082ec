/// The floor (contract §11, docs/fleet.md): the gateways of one gym share which of them holds
/// which machine through the broker the gym already runs, so a machine prefers its home gateway,
/// a neighbour stands in while the home cannot hold it, and a ride carries on as the same
/// session when its gateway dies.
///
/// The module is pure, as Workout is: it reads no clock and does no I/O. The daemon's
/// coordinator hands ``FloorView`` each message with the instant it arrived on the receiver's
/// monotonic clock (gateways have no shared wall clock), and asks it what to take and what to
/// give back. Every gateway runs the same rules on its own view, so for any machine at most one
/// of them decides to take it; where the views disagree for a moment, the Bluetooth link is the
/// lock (a machine takes one central at a time).
public enum FloorModule {
    /// The floor's topics live under `PREFIX/floor/`: see ``FloorTopics``.
    public static let topicLevel = "floor"
}
