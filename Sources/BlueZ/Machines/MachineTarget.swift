/// The machine a command or a supervisor is after: a Complete Local Name, an address, or
/// both once it has been seen (contract §2: the last machines are remembered by name and
/// address and reconnected without a fresh scan).
package struct MachineTarget: Sendable, Hashable, Codable, CustomStringConvertible {
    package var name: String?
    package var address: String?

    package init(name: String? = nil, address: String? = nil) {
        self.name = name
        self.address = address?.uppercased()
    }

    /// `SF-Bike-0001` or `C0:11:22:33:44:01`, as the CLI's MACHINE argument takes it.
    package init(_ nameOrAddress: String) {
        if Self.isAddress(nameOrAddress) {
            self.init(address: nameOrAddress)
        } else {
            self.init(name: nameOrAddress)
        }
    }

    /// The address wins when known: names are not unique, and a renamed machine is still ours.
    package func matches(_ machine: DiscoveredMachine) -> Bool {
        if let address { return machine.address.uppercased() == address }
        return machine.name == name
    }

    /// Fills in what `machine` told us, so the next reconnect goes by address.
    package mutating func remember(_ machine: DiscoveredMachine) {
        name = machine.name
        address = machine.address.uppercased()
    }

    package var description: String {
        switch (name, address) {
        case (let name?, let address?): "\(name) (\(address))"
        case (let name?, nil): name
        case (nil, let address?): address
        case (nil, nil): "any machine"
        }
    }

    static func isAddress(_ text: String) -> Bool {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        return parts.count == 6 && parts.allSatisfy { $0.count == 2 && $0.allSatisfy(\.isHexDigit) }
    }
}
