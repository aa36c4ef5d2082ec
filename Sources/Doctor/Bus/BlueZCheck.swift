import JSON
import BlueZ

/// Check 1b: is BlueZ on the bus, can this user read it, and is it new enough?
struct BlueZCheck: Sendable {
    static let id = "bluez"
    static let title = "BlueZ"

    func result(_ snapshot: BusSnapshot, version: BlueZVersionFinding?) -> CheckResult {
        guard case .reachable(let found) = snapshot else {
            return .skipped(id: Self.id, title: Self.title, because: "needs the system bus (see dbus)")
        }
        var data: [String: JSONValue] = ["owner": .optional(found.blueZOwner)]
        guard let owner = found.blueZOwner else {
            return CheckResult(
                id: Self.id, title: Self.title, status: .failed,
                detail: "nobody owns org.bluez on this bus: bluetoothd is not running",
                hint: "systemctl start bluetooth (it only starts when the kernel has a controller: see kernel)", data: data)
        }
        switch found.objects {
        case .failure(let failure)?:
            data["error"] = .string(failure.description)
            let policy = failure.isAccessDenied
            return CheckResult(
                id: Self.id, title: Self.title, status: .failed,
                detail: "org.bluez (\(owner)) refused to list its objects: \(failure.description)",
                hint: policy ? "the D-Bus policy does not let this user call org.bluez: see dbus-policy" : "restart bluetoothd; see journalctl -u bluetooth",
                data: data)
        case nil, .success:
            break
        }
        let adapters = found.tree?.paths(with: BlueZNames.adapter).count ?? 0
        data["adapters"] = .integer(Int64(adapters))
        guard let version else {
            return CheckResult(id: Self.id, title: Self.title, status: .ok, detail: "org.bluez is owned by \(owner)", data: data)
        }
        data["version"] = .optional(version.version?.description)
        data["version_exact"] = .bool(version.exact)
        data["version_source"] = .string(version.how)
        let head = "org.bluez is owned by \(owner); BlueZ \(version.text) (\(version.how))"
        guard let known = version.version else {
            return CheckResult(
                id: Self.id, title: Self.title, status: .warning, detail: head,
                hint: "check by hand with `bluetoothctl --version` on the machine that runs bluetoothd; 5.66 or newer is needed",
                data: data)
        }
        if known < BlueZVersion.minimum, version.exact {
            return CheckResult(
                id: Self.id, title: Self.title, status: .warning, detail: "\(head): older than \(BlueZVersion.minimum)",
                hint: "ftms-bridge is built and tested against BlueZ 5.66 (Debian 12); older releases have connection bugs it does not work around",
                data: data)
        }
        return CheckResult(id: Self.id, title: Self.title, status: .ok, detail: head, data: data)
    }
}

extension BusSnapshot.Reachable {
    /// BlueZ's objects, when they could be read.
    var tree: ObjectTree? {
        if case .success(let tree)? = objects { return tree }
        return nil
    }
}
