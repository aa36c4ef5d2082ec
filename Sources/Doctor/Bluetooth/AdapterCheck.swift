import JSON
import DaemonConfig

/// Check 3a: the adapters BlueZ has, each powered and able to act as a central.
struct AdapterCheck: Sendable {
    static let listID = "adapters"
    static let listTitle = "Adapters"

    /// `machines.adapters` from the config: empty means every powered adapter.
    var configured: [String]

    /// The overview: how many adapters, and whether the configured ones exist.
    func overview(_ adapters: [AdapterFacts]?, unavailable: String) -> CheckResult {
        guard let adapters else {
            return .skipped(id: Self.listID, title: Self.listTitle, because: unavailable)
        }
        let names = adapters.map(\.name)
        let missing = configured.filter { !names.contains($0) }
        let data: [String: JSONValue] = [
            "adapters": .array(names.map(JSONValue.string)), "configured": .array(configured.map(JSONValue.string)),
            "configured_missing": .array(missing.map(JSONValue.string)),
        ]
        guard !adapters.isEmpty else {
            return CheckResult(
                id: Self.listID, title: Self.listTitle, status: .failed, detail: "BlueZ lists no adapter",
                hint: "is a controller attached and unblocked? See kernel, `rfkill list`, `btmgmt info`", data: data)
        }
        if !missing.isEmpty {
            return CheckResult(
                id: Self.listID, title: Self.listTitle, status: .warning,
                detail: "\(names.joined(separator: ", ")); machines.adapters names \(missing.joined(separator: ", ")), which BlueZ does not have",
                hint: "fix machines.adapters in the config, or attach the adapter", data: data)
        }
        let use = configured.isEmpty ? "all used" : "using \(configured.joined(separator: ", "))"
        return CheckResult(id: Self.listID, title: Self.listTitle, status: .ok, detail: "\(names.joined(separator: ", ")) (\(use))", data: data)
    }

    /// One adapter: powered, central, discovering, address.
    func result(_ adapter: AdapterFacts) -> CheckResult {
        let id = "adapter.\(adapter.name)"
        let title = "Adapter \(adapter.name)"
        let used = configured.isEmpty || configured.contains(adapter.name)
        let data: [String: JSONValue] = [
            "path": .string(adapter.path), "address": .optional(adapter.address),
            "powered": adapter.powered.map(JSONValue.bool) ?? .null,
            "discovering": adapter.discovering.map(JSONValue.bool) ?? .null,
            "roles": adapter.roles.map { .array($0.map(JSONValue.string)) } ?? .null, "used": .bool(used),
        ]
        let facts = [
            adapter.address ?? "no address",
            adapter.powered == true ? "powered" : "powered off",
            adapter.roles.map { "roles \($0.joined(separator: "+"))" } ?? "roles not reported",
            adapter.discovering == true ? "discovering" : "not discovering",
        ] + (used ? [] : ["not in machines.adapters"])
        let detail = facts.joined(separator: ", ")
        if let roles = adapter.roles, !roles.contains(where: { $0.hasPrefix("central") }) {
            return CheckResult(
                id: id, title: title, status: .failed, detail: "\(detail): cannot act as a central",
                hint: "the gateway connects to machines as a central; this controller or its firmware does not offer that role",
                data: data)
        }
        if adapter.powered != true {
            return CheckResult(
                id: id, title: title, status: used ? .warning : .ok, detail: detail,
                hint: used ? "power it on: `bluetoothctl power on`, or AutoEnable=true in /etc/bluetooth/main.conf; `rfkill unblock bluetooth` if blocked" : nil,
                data: data)
        }
        return CheckResult(id: id, title: title, status: .ok, detail: detail, data: data)
    }
}
