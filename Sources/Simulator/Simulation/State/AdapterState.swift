/// One adapter's mutable state. Owned by the simulator actor and touched only there.
final class AdapterState {
    let name: String
    let path: String
    let address: String
    var powered = true
    /// Clients (unique bus names) with a discovery session.
    var sessions: Set<String> = []
    /// Per-client filters; BlueZ ORs them (docs/bluez.md "Discovery").
    var filters: [String: DiscoveryFilter] = [:]
    var discovering = false
    /// StartDiscovery calls still to refuse with InProgress (the kernel said no).
    var failuresToInject = 0
    /// StartDiscovery calls still to accept without scanning (``Fault/deafDiscovery(_:)``).
    var deafStartsToInject = 0
    /// Sessions exist, and the adapter does not scan until they are all gone.
    var deaf = false

    init(name: String, index: Int) {
        self.name = name
        path = "/org/bluez/" + name
        address = "00:1A:7D:DA:71:" + hexByte(UInt8(truncatingIfNeeded: index)).uppercased()
    }

    /// What a discovering adapter reports: every session's filter must be considered, and a
    /// session without a filter lets everything through.
    func admits(address: String, name: String?, uuids: [String], rssi: Int) -> Bool {
        sessions.contains { sender in
            filters[sender]?.matches(address: address, name: name, uuids: uuids, rssi: rssi) ?? true
        }
    }

    /// Whether any session turned off the RSSI change threshold.
    var reportsEveryRSSI: Bool {
        sessions.contains { filters[$0]?.reportsEveryRSSI == true }
    }
}
