package import BlueZ

/// What a gateway's fleet asks of the floor, and tells it (contract §11). With no floor (the
/// fleet's `floor` is nil, `[fleet]` off) the fleet asks nothing: it connects every machine its
/// allow list names (or, with none, every machine the filter takes), as it always did.
///
/// With a floor, placement is the floor's: discovery keeps running so the gateway hears
/// machines it does not hold, the allow list means "home" rather than "only", and the fleet
/// connects a machine it does not hold only when ``mayConnect(_:)`` says so (or the floor calls
/// ``MachineFleet/take(_:)``). The answers default to today's behaviour, so a floor that
/// overrides nothing changes nothing.
package protocol FloorHooks: Sendable {
    /// Whether the fleet may start connecting `machine`, one it does not hold. A floor that says
    /// yes has published its claim first (the claim comes BEFORE the connect).
    func mayConnect(_ machine: MachineTarget) async -> Bool
    /// Machines BlueZ heard advertising just now (each passes the fleet's filter), held or not.
    func heard(_ sightings: [MachineSighting]) async
    /// A supervised machine's link came up.
    func linked(_ machine: MachineTarget) async
    /// A supervised machine's link went down (it may come back: the supervisor retries).
    func dropped(_ machine: MachineTarget, reason: String) async
}

extension FloorHooks {
    package func mayConnect(_ machine: MachineTarget) async -> Bool { true }
    package func heard(_ sightings: [MachineSighting]) async {}
    package func linked(_ machine: MachineTarget) async {}
    package func dropped(_ machine: MachineTarget, reason: String) async {}
}
