import JSON

/// Check 1a: can the bus the daemon would use be reached?
struct BusCheck: Sendable {
    static let id = "dbus"
    static let title = "System bus"

    var choice: BusAddressChoice

    func result(_ snapshot: BusSnapshot) -> CheckResult {
        var data: [String: JSONValue] = ["address": .string(choice.address), "source": .string(choice.source)]
        switch snapshot {
        case .unreachable(let reason):
            data["reachable"] = false
            data["error"] = .string(reason)
            return CheckResult(
                id: Self.id, title: Self.title, status: .failed,
                detail: "cannot reach the bus at \(choice.address) (\(choice.source)): \(withoutAddress(reason))",
                hint: "is dbus running (systemctl status dbus)? Or point the doctor at the right bus with --bus or bluetooth.bus_address",
                data: data)
        case .reachable(let found):
            data["reachable"] = true
            data["unique_name"] = .string(found.uniqueName)
            return CheckResult(
                id: Self.id, title: Self.title, status: .ok,
                detail: "connected to \(choice.address) (\(choice.source)) as \(found.uniqueName)", data: data)
        }
    }

    /// DBusError's line repeats the address the detail already gives.
    private func withoutAddress(_ reason: String) -> String {
        let prefix = "cannot connect to D-Bus at \(choice.address): "
        return reason.hasPrefix(prefix) ? String(reason.dropFirst(prefix.count)) : reason
    }
}
