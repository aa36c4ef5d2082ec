/// The deciding gateway's own state, handed to ``FloorView/decide(for:at:)`` as it is now rather
/// than as its last presence reached the broker and came back.
public struct GatewayState: Sendable, Hashable {
    /// What this gateway publishes (or is about to): its home list, free slots, machines heard,
    /// held and being released.
    public var presence: GatewayPresence
    /// Advertised names of machines this gateway hears, by address: how a `home` list that
    /// names a machine by name finds it.
    public var names: [String: String]
    /// Machines (addresses) with a session open on this gateway: never handed back mid-ride.
    public var openSessions: Set<String>
    /// Machines of `presence.holding` still connecting (claimed, no link yet): a newer claim by
    /// another gateway is left to the link lock, not answered with a claim above it.
    public var connecting: Set<String>

    public init(presence: GatewayPresence, names: [String: String] = [:], openSessions: Set<String> = [], connecting: Set<String> = []) {
        self.presence = presence
        self.names = names
        self.openSessions = openSessions
        self.connecting = connecting
    }

    public var gateway: String { presence.gateway }
}

extension GatewayState {
    /// Every machine keyed as the floor keys it (upper-cased address).
    func keyed() -> GatewayState {
        GatewayState(
            presence: presence.keyed(),
            names: Dictionary(names.map { (FloorTopics.machineKey($0.key), $0.value) }, uniquingKeysWith: { first, _ in first }),
            openSessions: Set(openSessions.map(FloorTopics.machineKey)), connecting: Set(connecting.map(FloorTopics.machineKey)))
    }
}
