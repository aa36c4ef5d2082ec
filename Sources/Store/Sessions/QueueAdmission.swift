/// What storing a finished session did to the queue
/// (``GatewayStore/enqueue(_:machineAddress:series:timing:splitFrom:)``).
///
/// Seed 002 §7.3 on the gateway: of two summaries of one session, the later `endEpoch` wins,
/// as the reference backend decides it (`SessionFigures.supersedes`). A second summary of a
/// session comes when a gateway closed a session at its checkpoint and then carried it on
/// after all (issue 37: the floor of gateways).
public enum QueueAdmission: Sendable, Hashable {
    /// New to the queue: pending.
    case added
    /// The queue held an earlier summary of the session (an earlier `endEpoch`): this one took
    /// its place, pending with fresh retry counts, so it is sent even if the first was
    /// uploaded, and the backend lets the later end win.
    case replaced
    /// The queue held a summary of the session that ends as late or later (a replayed capture,
    /// a retried hand-off, a stale half): kept as it was.
    case kept
    /// Another gateway carries the session on (``GatewayStore/handOver(sessionID:machineAddress:to:)``):
    /// not stored, never uploaded from here.
    case handedOver
}
