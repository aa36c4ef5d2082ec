package import BlueZ

/// A machine this gateway's adapters hear, as the floor is told of it: the best RSSI over the
/// adapters that hear it (the floor rounds it for the wire).
package struct MachineSighting: Sendable, Hashable {
    /// Upper-cased.
    package var address: String
    package var name: String
    package var rssi: Int

    package init(address: String, name: String, rssi: Int) {
        self.address = address.uppercased()
        self.name = name
        self.rssi = rssi
    }

    package var target: MachineTarget { MachineTarget(name: name, address: address) }

    /// The signal of a machine heard without one (RSSI 127, HCI's "not available", which
    /// some controllers and btvirt always send): the weakest there is, so that any gateway
    /// that can say how well it hears the machine ranks above, and one that cannot still hears
    /// it (its home by `machines.allow` takes it).
    static let unknownSignal = -127

    /// Every machine in the tree that passes `filter` and is heard now (BlueZ reports an RSSI:
    /// it invalidates it when discovery stops), one per address.
    static func all(in tree: ObjectTree, filter: MachineFilter) -> [MachineSighting] {
        var best: [String: MachineSighting] = [:]
        for machine in tree.machines(passing: filter) where machine.heard {
            let rssi = machine.rssi ?? unknownSignal
            let sighting = MachineSighting(address: machine.address, name: machine.name, rssi: rssi)
            if let kept = best[sighting.address], kept.rssi >= rssi { continue }
            best[sighting.address] = sighting
        }
        return best.values.sorted { $0.address < $1.address }
    }
}
