package import FTMS

/// What a ``MachineSupervisor`` reports, in order, for one machine.
package enum SupervisorEvent: Sendable {
    /// The adapter the next attempt goes through, chosen by the ``AdapterAllocator`` (only
    /// with one), and why; comes before ``connecting(_:attempt:)``.
    case placed(adapter: String, reason: String)
    /// No adapter with room hears the machine: no attempt until one has (only with an
    /// ``AdapterAllocator``; sent when the reason changes).
    case waiting(MachineTarget, reason: String)
    /// A connect attempt begins (1 after each success, counting up while failures last).
    case connecting(MachineTarget, attempt: Int)
    /// The contract §2 sequence completed and control was granted.
    case ready(MachineInfo)
    /// A data or status notification, raw, in BlueZ's order.
    case notification(Characteristic, [UInt8])
    /// A ready link went away.
    case disconnected(reason: String)
    /// An attempt failed or a link dropped; the next attempt comes after `delay`.
    case retrying(after: Duration, reason: String)
}
