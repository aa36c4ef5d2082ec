import BlueZTesting
import Foundation
import Testing

/// `ftms-bridge scan` as a real process against the dbusmock BlueZ on a private bus.
@Suite("ftms-bridge scan", .serialized)
struct ScanCommandTests {
    @Test func listsTheMachinesInRange() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let fake = try await FakeBlueZ(bus: bus)
        defer { fake.stop() }
        try await fake.addAdapter("hci0")
        try await fake.addMachine(address: "C0:11:22:33:44:01", name: "SF-Bike-0001", kind: "bike")
        try await fake.addNameOnlyDevice(address: "C0:11:22:33:44:03", name: "SF-Bike-9999")
        let environment = ["DBUS_SYSTEM_BUS_ADDRESS": bus.address]

        let table = try await ProcessRunner.run(["scan", "--timeout", "0.3"], environment: environment)
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.lines == ["NAME          ADDRESS            TYPE  RSSI", "SF-Bike-0001  C0:11:22:33:44:01  bike  -60 dBm"])

        let json = try await ProcessRunner.run(["scan", "--timeout", "0.3", "--json"], environment: environment)
        #expect(json.status == 0)
        #expect(json.lines.count == 1)
        #expect(json.lines.first?.contains(#""name":"SF-Bike-0001""#) == true)
    }

    /// `--adapter hci0` lists what hci0 hears and starts no discovery on hci1 (a second
    /// controller may be busy advertising, and a scan there fails or disturbs it).
    @Test func adapterKeepsTheScanOnOneController() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let sim = try await SimulatedBlueZ(bus: bus, arguments: ["--adapters", "2", "--bikes", "2", "--visible-on", "one"])
        defer { sim.stop() }
        let environment = ["DBUS_SYSTEM_BUS_ADDRESS": bus.address]
        let table = try await ProcessRunner.run(["scan", "--timeout", "0.5", "--adapter", "hci0"], environment: environment)
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.lines.count == 2 && table.lines.last?.hasPrefix("SF-Bike-0001") == true, "\(table.lines)")
        let calls = try await sim.mock("GetCallLog").first?.strings ?? []
        let starts = calls.filter { $0.hasPrefix("org.bluez.Adapter1.StartDiscovery") }
        #expect(starts == ["org.bluez.Adapter1.StartDiscovery /org/bluez/hci0"], "\(calls)")
        let bad = try await ProcessRunner.run(["scan", "--adapter", "/org/bluez/hci0"], environment: environment)
        #expect(bad.status != 0 && bad.stderr.contains("--adapter takes an adapter name"), "\(bad.stderr)")
    }

    @Test func anUnreachableBusIsAOneLineError() async throws {
        let result = try await ProcessRunner.run(["scan", "--timeout", "0.2"], environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/socket"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("ftms-bridge: scan: cannot connect to D-Bus"))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }
}
