extension GatewayPresence {
    /// Whether this gateway's `home` list names the machine, by address or advertised name,
    /// without case (as `machines.allow` matches). Placement asks this of every live gateway for
    /// every machine on every decision, so the address and name are lowered once, not once per
    /// entry.
    public func namesHome(machine address: String, name: String?) -> Bool {
        guard !home.isEmpty else { return false }
        let address = address.lowercased()
        let name = name?.lowercased()
        return home.contains { entry in
            let entry = entry.lowercased()
            return entry == address || entry == name
        }
    }

    /// The same presence with every machine keyed as the floor keys it (upper-cased address).
    func keyed() -> GatewayPresence {
        var presence = self
        presence.heard = Dictionary(heard.map { (FloorTopics.machineKey($0.key), $0.value) }, uniquingKeysWith: max)
        presence.holding = holding.map(FloorTopics.machineKey)
        presence.releasing = releasing.map(FloorTopics.machineKey)
        presence.lost = Dictionary(lost.map { (FloorTopics.machineKey($0.key), $0.value) }, uniquingKeysWith: { first, _ in first })
        return presence
    }
}
