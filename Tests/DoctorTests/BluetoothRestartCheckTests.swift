import BlueZTesting
import DBus
import Doctor
import Foundation
import TestSupport
import Testing

/// The `bluetoothd-restart` check against a real private dbus-daemon, with a stand-in for
/// systemd's manager on it that answers `bluetooth.service`'s properties from a table: what
/// Debian 12's unit says, what it says with the package's drop-in, and the ways in between.
@Suite("bluetoothd restart check", .serialized)
struct BluetoothRestartCheckTests {
    /// `org.freedesktop.systemd1` answering `Properties.Get` on bluetooth.service's object.
    final class FakeSystemd: @unchecked Sendable {
        let connection: DBusConnection

        init(bus: PrivateBus, unit: [String: DBusValue]) async throws {
            connection = try await DBusConnection.connect(address: bus.address)
            #expect(try await connection.requestName("org.freedesktop.systemd1"))
            try connection.export(path: "/org/freedesktop/systemd1/unit/bluetooth_2eservice") { call in
                guard call.interface == "org.freedesktop.DBus.Properties", call.member == "Get",
                    let name = call.arguments.last?.string, let value = unit[name]
                else {
                    call.replier.fail(name: "org.freedesktop.DBus.Error.UnknownProperty", message: "no such property")
                    return
                }
                call.replier.reply([.variant(value)])
            }
        }

        deinit { connection.close() }
    }

    /// Debian 12's own bluetooth.service: `#Restart=on-failure`, systemd's defaults.
    static let debian: [String: DBusValue] = [
        "LoadState": .string("loaded"), "Restart": .string("no"), "RestartUSec": .uint64(100_000),
        "StartLimitIntervalUSec": .uint64(10_000_000), "StartLimitBurst": .uint32(5),
    ]

    func check(_ unit: [String: DBusValue]?) async throws -> CheckResult {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let systemd: FakeSystemd?
        if let unit { systemd = try await FakeSystemd(bus: bus, unit: unit) } else { systemd = nil }
        defer { withExtendedLifetime(systemd) {} }
        let directory = try TemporaryDirectory()
        let report = await Doctor(inputs: .isolated(in: directory, bus: bus.address)).run()
        return try #require(report.check("bluetoothd-restart"))
    }

    @Test func debiansOwnUnitIsAWarningWithTheDropIn() async throws {
        let result = try await check(Self.debian)
        #expect(result.status == .warning)
        #expect(result.detail == "bluetooth.service has Restart=no: after a crash of bluetoothd every machine stays without Bluetooth until it is restarted by hand")
        #expect(result.hint?.contains("/usr/lib/systemd/system/bluetooth.service.d/ftms-bridge.conf") == true)
        #expect(result.data["restart"] == "no")
    }

    @Test func thePackagesDropInIsOK() async throws {
        var unit = Self.debian
        unit["Restart"] = .string("on-failure")
        unit["RestartUSec"] = .uint64(2_000_000)
        unit["StartLimitIntervalUSec"] = .uint64(0)
        let result = try await check(unit)
        #expect(result.status == .ok, "\(result.detail)")
        #expect(result.detail == "bluetooth.service restarts bluetoothd after a crash (Restart=on-failure, RestartSec=2 s)")
        #expect(result.data["start_limit_interval_usec"] == 0)
    }

    /// Restart=on-failure with systemd's start limit and a quick restart: five crashes in ten
    /// seconds and it stays down, which is the loop a client-triggered crash makes.
    @Test func aStartLimitACrashLoopReachesIsAWarning() async throws {
        var unit = Self.debian
        unit["Restart"] = .string("on-failure")
        let result = try await check(unit)
        #expect(result.status == .warning)
        #expect(result.detail.hasSuffix("but 5 crashes within StartLimitIntervalSec=10 s stop it for good"), "\(result.detail)")
        // Restarts far enough apart never reach the limit.
        unit["RestartUSec"] = .uint64(3_000_000)
        #expect(try await check(unit).status == .ok)
    }

    @Test func aMaskedUnitIsAWarning() async throws {
        let result = try await check(["LoadState": .string("masked")])
        #expect(result.status == .warning)
        #expect(result.detail.hasPrefix("bluetooth.service is masked"))
    }

    @Test func noSystemdOnTheBusIsSkipped() async throws {
        let result = try await check(nil)
        #expect(result.status == .skipped)
        #expect(result.detail.hasPrefix("no systemd on this bus"))
    }
}
