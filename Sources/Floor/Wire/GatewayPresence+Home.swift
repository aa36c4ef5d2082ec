extension GatewayPresence {
    /// Whether this gateway's `home` list names the machine, by address or advertised name,
    /// without case (as `machines.allow` matches).
    public func namesHome(machine address: String, name: String?) -> Bool {
        home.contains { entry in
            entry.sameIgnoringCase(address) || name.map { entry.sameIgnoringCase($0) } ?? false
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

extension String {
    fileprivate func sameIgnoringCase(_ other: String) -> Bool {
        lowercased() == other.lowercased()
    }
}
