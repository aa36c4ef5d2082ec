import BlueZ
package import DaemonConfig
import DBus

extension FleetSettings {
    /// `[machines]` and `[bluetooth]` as the fleet uses them. An allow-list entry that is an
    /// address is matched by address, any other by name: a machine whose name is not
    /// SolidFocus's may still be allowed by its exact name.
    package init(config: DaemonConfig, environment: [String: String]) {
        let bus = config.bluetooth.busAddress.isEmpty
            ? DBusConnection.systemBusAddress(environment: environment) : config.bluetooth.busAddress
        let targets = config.machines.allow.map { MachineTarget($0) }
        let addresses = targets.compactMap(\.address)
        let names = targets.filter { $0.address == nil }.compactMap(\.name)
        let filter = MachineFilter(
            namePatterns: MachineFilter().namePatterns + names, addresses: Set(addresses),
            acceptGenericFTMS: config.machines.acceptGenericFTMS)
        self.init(
            busAddress: bus, filter: filter, allow: config.machines.allow, adapters: config.machines.adapters,
            maxConnected: config.machines.maxConnected, maxPerAdapter: config.machines.maxPerAdapter)
    }
}
