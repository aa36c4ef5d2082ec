import JSON
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Check 4: does this kernel do Bluetooth, and which controllers does it see?
///
/// A box without Bluetooth (a VM, a CI runner, this build machine) is reported in one plain
/// line and as a warning, not a failure: the daemon still runs there against a simulated
/// BlueZ, and the operator needs to read why no adapter shows up, not a trace.
struct KernelCheck: Sendable {
    static let id = "kernel"
    static let title = "Kernel Bluetooth"

    var probe: KernelBluetoothProbe
    /// `/sys/class/bluetooth`.
    var sysfs: String

    /// What the kernel offers, for the controller checks' skip reasons.
    enum Support: Sendable, Hashable {
        case present(controllers: [String])
        case absent
        case unknown
    }

    func run() -> (result: CheckResult, support: Support) {
        let controllers = Self.controllers(in: sysfs)
        var data: [String: JSONValue] = [
            "sysfs": .string(sysfs), "sysfs_present": .bool(controllers != nil),
            "controllers": .array((controllers ?? []).map(JSONValue.string)),
        ]
        let sysfsWords = controllers == nil ? "\(sysfs) does not exist" : "\(sysfs) lists \(Self.list(controllers ?? []))"
        if let error = probe.socketError() {
            data["socket_error"] = .string(Errno.describe(error))
            if error == EAFNOSUPPORT {
                data["bluetooth_support"] = false
                return (CheckResult(
                    id: Self.id, title: Self.title, status: .warning,
                    detail: "this kernel has no Bluetooth support: socket(AF_BLUETOOTH) fails with \(Errno.describe(error)) and \(sysfsWords)",
                    hint: "real machines need a kernel with Bluetooth (CONFIG_BT) and a controller; a simulated BlueZ (ftms-sim) on the bus still works",
                    data: data), .absent)
            }
            data["bluetooth_support"] = .null
            return (CheckResult(
                id: Self.id, title: Self.title, status: .warning,
                detail: "cannot tell whether this kernel has Bluetooth: socket(AF_BLUETOOTH) fails with \(Errno.describe(error)); \(sysfsWords)",
                hint: "a sandbox (seccomp, a container without the bluetooth address family) may forbid the socket",
                data: data), .unknown)
        }
        data["bluetooth_support"] = true
        guard let controllers, !controllers.isEmpty else {
            return (CheckResult(
                id: Self.id, title: Self.title, status: .warning,
                detail: "the kernel has Bluetooth, but no controller is attached (\(sysfsWords))",
                hint: "plug in an adapter; check `rfkill list` and `dmesg | grep -i bluetooth` for firmware errors",
                data: data), .present(controllers: []))
        }
        return (CheckResult(
            id: Self.id, title: Self.title, status: .ok, detail: "Bluetooth support present; controllers: \(Self.list(controllers))",
            data: data), .present(controllers: controllers))
    }

    /// `hci0`, `hci1`, … under `/sys/class/bluetooth` (which also holds per-link entries such
    /// as `hci0:64`); `nil` when the directory does not exist.
    static func controllers(in sysfs: String) -> [String]? {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: sysfs) else { return nil }
        return entries.filter { $0.wholeMatch(of: /hci\d+/) != nil }.sorted { $0.localizedStandardCompare($1) == .orderedAscending }
    }

    static func list(_ names: [String]) -> String {
        names.isEmpty ? "no controller" : names.joined(separator: ", ")
    }
}
