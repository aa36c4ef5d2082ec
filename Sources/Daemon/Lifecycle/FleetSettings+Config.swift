import BlueZ
public import DaemonConfig
import DBus

extension FleetSettings {
    /// `[machines]` and `[bluetooth]` as the fleet uses them. An allow-list entry that is an
    /// address is matched by address, any other by name: a machine whose name is not
    /// SolidFocus's may still be allowed by its exact name.
    public init(config: DaemonConfig, environment: [String: String]) {
        let bus = config.bluetooth.busAddress.isEmpty
            ? DBusConnection.systemBusAddress(environment: environment) : config.bluetooth.busAddress
        let addresses = config.machines.allow.filter(Self.isAddress)
        let names = config.machines.allow.filter { !Self.isAddress($0) }
        let filter = MachineFilter(
            namePatterns: MachineFilter().namePatterns + names, addresses: Set(addresses),
            acceptGenericFTMS: config.machines.acceptGenericFTMS)
        self.init(
            busAddress: bus, filter: filter, allow: config.machines.allow, adapters: config.machines.adapters,
            maxConnected: config.machines.maxConnected)
    }

    static func isAddress(_ text: String) -> Bool {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        return parts.count == 6 && parts.allSatisfy { $0.count == 2 && $0.allSatisfy(\.isHexDigit) }
    }
}
