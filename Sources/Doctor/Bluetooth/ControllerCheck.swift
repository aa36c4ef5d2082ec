import JSON

/// Check 3b: the controller behind an adapter: who made it, which Bluetooth version, and what
/// that means for how many machines it can hold.
struct ControllerCheck: Sendable {
    var probe: any ControllerProbe
    var timeout: Duration
    /// `machines.max_connected`, to compare with the rule of thumb.
    var maxConnected: Int

    func result(_ adapter: AdapterFacts, kernel: KernelCheck.Support) async -> CheckResult {
        let id = "controller.\(adapter.name)"
        let title = "Controller \(adapter.name)"
        var source = "HCI Read Local Version"
        var info: ControllerInfo?
        var failure: ControllerProbeFailure?
        if let index = adapter.index, kernel != .absent {
            switch await probe.read(index: index, timeout: timeout) {
            case .success(let read): info = read
            case .failure(let error): failure = error
            }
        } else {
            failure = kernel == .absent ? .noKernelSupport : .noDevice
        }
        // Newer BlueZ exports the same two numbers on the adapter: good enough when HCI is not.
        if info == nil, let manufacturer = adapter.manufacturer, let version = adapter.hciVersion {
            info = ControllerInfo(manufacturer: manufacturer, hciVersion: version)
            source = "Adapter1 Manufacturer and Version"
        }
        guard let info else {
            return unreadable(id: id, title: title, adapter: adapter, failure ?? .noDevice)
        }
        return described(id: id, title: title, info: info, source: source)
    }

    private func described(id: String, title: String, info: ControllerInfo, source: String) -> CheckResult {
        var data: [String: JSONValue] = [
            "manufacturer_id": .integer(Int64(info.manufacturer)), "manufacturer": .string(info.manufacturerName),
            "hci_version": .integer(Int64(info.hciVersion)), "hci_revision": .integer(Int64(info.hciRevision)),
            "lmp_version": .integer(Int64(info.lmpVersion)), "lmp_subversion": .integer(Int64(info.lmpSubversion)),
            "bluetooth_version": .string(info.bluetoothVersion), "le_supported": info.leSupported.map(JSONValue.bool) ?? .null,
            "source": .string(source), "max_connected": .integer(Int64(maxConnected)),
        ]
        let head = "\(info.manufacturerName), \(info.bluetoothVersion)"
        guard info.canDoLowEnergy, let links = CoreVersion.typicalLELinks(hciVersion: info.hciVersion) else {
            return CheckResult(
                id: id, title: title, status: .failed, detail: "\(head): no Bluetooth Low Energy, so no FTMS machine can connect",
                hint: "use a Bluetooth 4.2 or newer adapter", data: data)
        }
        data["typical_le_links_low"] = .integer(Int64(links.low))
        data["typical_le_links_high"] = .integer(Int64(links.high))
        let rule = "LE links are limited by the firmware, not the spec: expect about \(links.low)-\(links.high) at once"
        let note = maxConnected > links.high
            ? "; machines.max_connected is \(maxConnected), so spread machines over more adapters if links fail" : ""
        return CheckResult(id: id, title: title, status: .ok, detail: "\(head), LE; \(rule)\(note)", data: data)
    }

    private func unreadable(id: String, title: String, adapter: AdapterFacts, _ failure: ControllerProbeFailure) -> CheckResult {
        switch failure {
        case .noKernelSupport:
            return .skipped(
                id: id, title: title,
                because: "this kernel has no Bluetooth, so no controller is behind \(adapter.name) (a simulated BlueZ?)")
        case .noDevice:
            return .skipped(id: id, title: title, because: "the kernel has no HCI device \(adapter.name) (a simulated BlueZ?)")
        case .failed(let reason):
            return CheckResult(
                id: id, title: title, status: .warning, detail: "cannot read the controller: \(reason)",
                hint: "run the doctor as root, or check `btmgmt info`", data: ["error": .string(reason)])
        }
    }
}
