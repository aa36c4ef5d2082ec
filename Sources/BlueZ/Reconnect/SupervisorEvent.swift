public import FTMS

/// What a ``MachineSupervisor`` reports, in order, for one machine.
public enum SupervisorEvent: Sendable {
    /// A connect attempt begins (1 after each success, counting up while failures last).
    case connecting(MachineTarget, attempt: Int)
    /// The SPEC §2 sequence completed and control was granted.
    case ready(MachineInfo)
    /// A data or status notification, raw, in BlueZ's order.
    case notification(Characteristic, [UInt8])
    /// A ready link went away.
    case disconnected(reason: String)
    /// An attempt failed or a link dropped; the next attempt comes after `delay`.
    case retrying(after: Duration, reason: String)
}
