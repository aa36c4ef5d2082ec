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

    public init(presence: GatewayPresence, names: [String: String] = [:], openSessions: Set<String> = []) {
        self.presence = presence
        self.names = names
        self.openSessions = openSessions
    }

    public var gateway: String { presence.gateway }
}
