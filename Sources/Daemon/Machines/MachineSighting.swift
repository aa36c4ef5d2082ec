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

    /// Every machine in the tree that passes `filter` and has a valid RSSI (BlueZ invalidates
    /// it when discovery stops), one per address.
    static func all(in tree: ObjectTree, filter: MachineFilter) -> [MachineSighting] {
        var best: [String: MachineSighting] = [:]
        for machine in tree.machines(passing: filter) {
            guard let rssi = machine.rssi else { continue }
            let sighting = MachineSighting(address: machine.address, name: machine.name, rssi: rssi)
            if let kept = best[sighting.address], kept.rssi >= rssi { continue }
            best[sighting.address] = sighting
        }
        return best.values.sorted { $0.address < $1.address }
    }
}
