import JSON

/// Check 1c: would bluetoothd come back after a crash? bluetoothd 5.66 can crash (docs/bluez.md),
/// and Debian 12's `bluetooth.service` leaves `Restart=` unset: one crash then leaves every
/// machine of the box without Bluetooth until someone restarts it. The package's drop-in
/// (docs/systemd.md, "When bluetoothd crashes") sets `Restart=on-failure`.
struct BluetoothRestartCheck: Sendable {
    static let id = "bluetoothd-restart"
    static let title = "bluetoothd restart"
    static let hint = "install the package's drop-in /usr/lib/systemd/system/bluetooth.service.d/ftms-bridge.conf (Restart=on-failure, RestartSec=2s, StartLimitIntervalSec=0) and run systemctl daemon-reload; see docs/systemd.md"

    func result(_ snapshot: BusSnapshot) -> CheckResult {
        guard case .reachable(let found) = snapshot else {
            return .skipped(id: Self.id, title: Self.title, because: "needs the system bus (see dbus)")
        }
        guard let answer = found.bluetoothUnit else {
            return .skipped(id: Self.id, title: Self.title, because: "no systemd on this bus: whatever runs bluetoothd here must restart it")
        }
        let facts: BluetoothUnitFacts
        switch answer {
        case .failure(let failure):
            return CheckResult(
                id: Self.id, title: Self.title, status: .warning,
                detail: "systemd did not say how it runs \(BluetoothUnitFacts.unit): \(failure.description)",
                hint: "systemctl show \(BluetoothUnitFacts.unit) -p Restart should say on-failure", data: ["error": .string(failure.description)])
        case .success(let found):
            facts = found
        }
        var data: [String: JSONValue] = ["load_state": .string(facts.loadState), "restart": .string(facts.restart)]
        data["restart_usec"] = facts.restartMicroseconds.map { .integer(Int64(clamping: $0)) } ?? .null
        data["start_limit_interval_usec"] = facts.startLimitIntervalMicroseconds.map { .integer(Int64(clamping: $0)) } ?? .null
        data["start_limit_burst"] = .integer(Int64(facts.startLimitBurst))
        guard facts.loadState == "loaded" else {
            return CheckResult(
                id: Self.id, title: Self.title, status: .warning,
                detail: "\(BluetoothUnitFacts.unit) is \(facts.loadState): systemd does not run bluetoothd, so nothing restarts it after a crash",
                hint: facts.loadState == "masked" ? "systemctl unmask \(BluetoothUnitFacts.unit), unless something else plays org.bluez here" : Self.hint,
                data: data)
        }
        guard facts.restartsAfterACrash else {
            return CheckResult(
                id: Self.id, title: Self.title, status: .warning,
                detail: "\(BluetoothUnitFacts.unit) has Restart=\(facts.restart): after a crash of bluetoothd every machine stays without Bluetooth until it is restarted by hand",
                hint: Self.hint, data: data)
        }
        let head = "\(BluetoothUnitFacts.unit) restarts bluetoothd after a crash (Restart=\(facts.restart), RestartSec=\(Self.text(facts.restartMicroseconds)))"
        if let crashes = facts.crashesThatStopItForGood {
            return CheckResult(
                id: Self.id, title: Self.title, status: .warning,
                detail: "\(head), but \(crashes) crashes within StartLimitIntervalSec=\(Self.text(facts.startLimitIntervalMicroseconds)) stop it for good",
                hint: Self.hint, data: data)
        }
        return CheckResult(id: Self.id, title: Self.title, status: .ok, detail: head, data: data)
    }

    /// `2 s`, `100 ms`, `infinity`.
    static func text(_ microseconds: UInt64?) -> String {
        guard let microseconds else { return "infinity" }
        return Seconds.text(.microseconds(Int64(clamping: microseconds)))
    }
}
