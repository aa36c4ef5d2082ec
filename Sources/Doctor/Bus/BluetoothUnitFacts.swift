import DBus

/// How systemd runs bluetoothd: `bluetooth.service`'s properties, read through systemd's own
/// D-Bus API (`org.freedesktop.systemd1`) on the bus BlueZ is on, as `systemctl show` reads
/// them. Only reads: the unit's object path is the escaped name, which loads nothing that
/// `systemctl show bluetooth` would not.
struct BluetoothUnitFacts: Sendable, Hashable {
    /// `loaded`, `not-found`, `masked`…
    var loadState: String
    /// `no`, `on-failure`, `always`…
    var restart: String
    /// RestartSec=, in microseconds; nil for infinity.
    var restartMicroseconds: UInt64?
    /// StartLimitIntervalSec=, in microseconds (0: no limit); nil for infinity.
    var startLimitIntervalMicroseconds: UInt64?
    /// StartLimitBurst=.
    var startLimitBurst: UInt32

    static let unit = "bluetooth.service"
    static let systemd = "org.freedesktop.systemd1"
    /// `bluetooth.service` escaped as systemd names its objects (`.` is `_2e`).
    static let path = "/org/freedesktop/systemd1/unit/bluetooth_2eservice"
    static let unitInterface = "org.freedesktop.systemd1.Unit"
    static let serviceInterface = "org.freedesktop.systemd1.Service"

    /// The unit's facts; nil when no systemd answers on this bus (bluetoothd is not run by
    /// systemd there, or the bus is a test's).
    static func read(on connection: DBusConnection, timeout: Duration) async -> Result<BluetoothUnitFacts, BusCallFailure>? {
        do {
            guard try await connection.nameOwner(systemd) != nil else { return nil }
            func property(_ interface: String, _ name: String) async throws -> DBusValue {
                let reply = try await connection.call(
                    destination: systemd, path: path, interface: "org.freedesktop.DBus.Properties", member: "Get",
                    arguments: [.string(interface), .string(name)], timeout: timeout)
                guard let value = reply.first?.unwrapped else { throw BusCallFailure(name: nil, message: "no value for \(name)") }
                return value
            }
            let loadState = try await property(unitInterface, "LoadState").string ?? "?"
            // A unit that is not there (or masked) has no service properties worth reading.
            guard loadState == "loaded" else {
                return .success(BluetoothUnitFacts(
                    loadState: loadState, restart: "no", restartMicroseconds: nil, startLimitIntervalMicroseconds: nil, startLimitBurst: 0))
            }
            return .success(BluetoothUnitFacts(
                loadState: loadState,
                restart: try await property(serviceInterface, "Restart").string ?? "?",
                restartMicroseconds: microseconds(try await property(serviceInterface, "RestartUSec")),
                startLimitIntervalMicroseconds: microseconds(try await property(unitInterface, "StartLimitIntervalUSec")),
                startLimitBurst: UInt32(clamping: try await property(unitInterface, "StartLimitBurst").integer ?? 0)))
        } catch let failure as BusCallFailure {
            return .failure(failure)
        } catch {
            return .failure(BusCallFailure(error))
        }
    }

    /// systemd's `t` durations; UINT64_MAX is infinity.
    private static func microseconds(_ value: DBusValue) -> UInt64? {
        guard case .uint64(let raw) = value, raw != .max else { return nil }
        return raw
    }

    /// Whether a crash (SIGSEGV: an unclean signal) brings bluetoothd back: on-failure,
    /// on-abnormal, on-abort and always all cover it (systemd.service(5)'s table).
    var restartsAfterACrash: Bool {
        ["on-failure", "on-abnormal", "on-abort", "always"].contains(restart)
    }

    /// The number of crashes within the start limit's interval that stop bluetoothd for good,
    /// or nil when no crash loop can reach the limit (no limit, or restarts too far apart).
    var crashesThatStopItForGood: UInt32? {
        guard let interval = startLimitIntervalMicroseconds, interval > 0, startLimitBurst > 0 else { return nil }
        // systemd refuses a start when `burst` starts came within the interval before it: the
        // first start and `burst` restarts, at least RestartSec= apart, must fit for that.
        let spacing = restartMicroseconds ?? .max
        let span = spacing.multipliedReportingOverflow(by: UInt64(startLimitBurst))
        guard !span.overflow, span.partialValue < interval else { return nil }
        return startLimitBurst
    }
}
