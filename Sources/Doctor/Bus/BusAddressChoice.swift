/// Which bus the doctor looks at, and why that one: the same choice the daemon (`ftms-bridged`) makes,
/// so the doctor examines the bus the daemon would use.
struct BusAddressChoice: Sendable, Hashable {
    static let standard = "unix:path=/run/dbus/system_bus_socket"

    var address: String
    /// `--bus`, `config bluetooth.bus_address`, `DBUS_SYSTEM_BUS_ADDRESS` or `default`.
    var source: String

    /// `--bus` first, then the config's `bluetooth.bus_address` (which, when set, the daemon
    /// prefers to the environment), then `DBUS_SYSTEM_BUS_ADDRESS`, then the standard socket.
    static func resolve(flag: String?, configured: String, environment: [String: String], standard: String = BusAddressChoice.standard) -> BusAddressChoice {
        if let flag, !flag.isEmpty { return BusAddressChoice(address: flag, source: "--bus") }
        if !configured.isEmpty { return BusAddressChoice(address: configured, source: "config bluetooth.bus_address") }
        if let variable = environment["DBUS_SYSTEM_BUS_ADDRESS"], !variable.isEmpty {
            return BusAddressChoice(address: variable, source: "DBUS_SYSTEM_BUS_ADDRESS")
        }
        return BusAddressChoice(address: standard, source: "default")
    }
}
