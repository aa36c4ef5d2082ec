/// Which adapter a supervisor's next link goes through (several adapters for real, contract §2).
///
/// BlueZ makes one Device1 per adapter that hears a machine, and a controller holds only a
/// few LE links (CSR 5, Broadcom 7: docs/bluez.md "Timeouts and limits"), so something has to choose among the copies
/// and keep count. The supervisor asks before every attempt and gives the slot back when the
/// attempt fails or the link ends; the daemon's fleet implements the budget.
package protocol AdapterAllocator: Sendable {
    /// Picks an adapter for `machine`'s next link among `seenOn` (the adapter paths whose
    /// Device1 copies of it are on the bus; `present` is every adapter on the bus), or says
    /// why it has to wait. `linked` is, per adapter path, the (upper-case) addresses of the
    /// devices BlueZ has connected through it, whoever connected them: a link another client
    /// made takes a controller's slot as surely as one of ours. A machine holds at most one
    /// claim: claiming again replaces it.
    func claim(_ machine: String, seenOn: [String], present: [String], linked: [String: Set<String>]) async -> AdapterChoice
    /// Gives back `machine`'s claim (its attempt failed or its link ended).
    func release(_ machine: String) async
    /// Returns once a claim might succeed that could not before (a slot was given back), or
    /// after `timeout` (an adapter may have appeared meanwhile).
    func waitForRoom(timeout: Duration) async
}

/// An ``AdapterAllocator``'s answer.
package enum AdapterChoice: Sendable, Equatable {
    /// Connect through this adapter (`/org/bluez/hci1`); `reason` says why this one.
    case use(adapter: String, reason: String)
    /// No adapter that hears the machine has room, or none may be used.
    case wait(reason: String)
}
