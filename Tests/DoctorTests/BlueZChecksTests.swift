import BlueZTesting
import TestSupport
import DBus
import Doctor
import Foundation
import Testing

/// The bus, BlueZ, adapter and controller checks against a real private dbus-daemon, with
/// python-dbusmock's BlueZ on it.
@Suite("BlueZ checks on a private bus", .serialized)
struct BlueZChecksTests {
    /// A `bluetoothd` stand-in that prints `line` for `--version`.
    static func fakeBluetoothd(in directory: TemporaryDirectory, printing line: String, sleeping: Int = 0) throws -> String {
        let path = try directory.write("bin/bluetoothd", "#!/bin/sh\n\(sleeping > 0 ? "sleep \(sleeping)\n" : "")echo '\(line)'\n")
        chmod(path, 0o755)
        return path
    }

    @Test func adaptersAndTheirControllersAreReported() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let fake = try await FakeBlueZ(bus: bus)
        defer { fake.stop() }
        try await fake.addAdapter("hci0")
        try await fake.addAdapter("hci1")
        _ = try await fake.control.call(
            destination: "org.bluez", path: "/org/bluez/hci1", interface: "org.freedesktop.DBus.Properties", member: "Set",
            arguments: [.string("org.bluez.Adapter1"), .string("Powered"), .variant(.bool(false))])

        let directory = try TemporaryDirectory()
        var inputs = DoctorInputs.isolated(in: directory, bus: bus.address)
        try FileManager.default.createDirectory(atPath: directory.file("sys/class/bluetooth/hci0"), withIntermediateDirectories: true)
        inputs.kernelProbe = KernelBluetoothProbe { nil }
        inputs.bluetoothdPaths = [try Self.fakeBluetoothd(in: directory, printing: "5.66")]
        inputs.controllerProbe = StubControllerProbe([
            0: .success(ControllerInfo(manufacturer: 2, hciVersion: 11, hciRevision: 0x100, leSupported: true))
        ])
        let report = await Doctor(inputs: inputs).run()

        #expect(report.check("kernel")?.status == .ok)
        #expect(report.check("kernel")?.detail == "Bluetooth support present; controllers: hci0")
        #expect(report.check("dbus")?.status == .ok)
        let blueZ = try #require(report.check("bluez"))
        #expect(blueZ.status == .ok, "\(blueZ.detail)")
        #expect(blueZ.detail.hasSuffix("BlueZ 5.66 (\(inputs.bluetoothdPaths[0]) --version)"))
        #expect(blueZ.data["version"] == "5.66")
        #expect(blueZ.data["version_exact"] == true)
        #expect(report.check("adapters")?.detail == "hci0, hci1 (all used)")

        let first = try #require(report.check("adapter.hci0"))
        #expect(first.status == .ok)
        #expect(first.detail.contains("powered, roles central+peripheral, not discovering"))
        #expect(first.data["powered"] == true)
        #expect(first.data["roles"] == ["central", "peripheral"])
        let second = try #require(report.check("adapter.hci1"))
        #expect(second.status == .warning)
        #expect(second.detail.contains("powered off"))
        #expect(second.hint?.contains("bluetoothctl power on") == true)

        let controller = try #require(report.check("controller.hci0"))
        #expect(controller.status == .ok)
        #expect(controller.detail.hasPrefix("Intel, Bluetooth 5.2, LE; LE links are limited by the firmware"))
        #expect(controller.data["manufacturer_id"] == 2)
        #expect(report.check("controller.hci1")?.status == .skipped)
        #expect(report.check("controller.hci1")?.detail == "the kernel has no HCI device hci1 (a simulated BlueZ?)")
    }

    @Test func anOldOrSilentBluetoothdIsAWarningNotAHang() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let fake = try await FakeBlueZ(bus: bus)
        defer { fake.stop() }
        try await fake.addAdapter("hci0")
        let directory = try TemporaryDirectory()
        var inputs = DoctorInputs.isolated(in: directory, bus: bus.address)
        inputs.bluetoothdPaths = [try Self.fakeBluetoothd(in: directory, printing: "5.55")]
        let old = try #require(await Doctor(inputs: inputs).run().check("bluez"))
        #expect(old.status == .warning)
        #expect(old.detail.hasSuffix("older than 5.66"))

        let silent = try TemporaryDirectory()
        inputs.bluetoothdPaths = [try Self.fakeBluetoothd(in: silent, printing: "5.66", sleeping: 30)]
        // It sleeps 30 s before printing "5.66": the check gives up at its 300 ms limit, so
        // the version stays unknown (a check that waited would have read it).
        inputs.timeouts.bluetoothdVersion = .milliseconds(300)
        let unknown = try #require(await Doctor(inputs: inputs).run().check("bluez"))
        #expect(unknown.status == .warning)
        #expect(unknown.detail.contains("BlueZ version unknown ("))
        #expect(unknown.detail.contains("did not answer in time"))
        // The kernel has no Bluetooth in these inputs: the controller is skipped, plainly.
        let report = await Doctor(inputs: inputs).run()
        #expect(report.check("controller.hci0")?.status == .skipped)
        #expect(report.check("controller.hci0")?.detail == "this kernel has no Bluetooth, so no controller is behind hci0 (a simulated BlueZ?)")
    }

    @Test func aBusWithoutBlueZFailsClearly() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let directory = try TemporaryDirectory()
        let report = await Doctor(inputs: .isolated(in: directory, bus: bus.address)).run()
        #expect(report.check("dbus")?.status == .ok)
        let blueZ = try #require(report.check("bluez"))
        #expect(blueZ.status == .failed)
        #expect(blueZ.detail == "nobody owns org.bluez on this bus: bluetoothd is not running")
        #expect(report.check("adapters")?.status == .skipped)
        #expect(report.check("adapters")?.detail == "needs BlueZ (see bluez)")
        #expect(report.exitStatus == 1)
    }

    @Test func noBusAtAllFailsClearly() async throws {
        let directory = try TemporaryDirectory()
        let inputs = DoctorInputs.isolated(in: directory)
        let report = await Doctor(inputs: inputs).run()
        let bus = try #require(report.check("dbus"))
        #expect(bus.status == .failed)
        #expect(bus.detail.hasPrefix("cannot reach the bus at unix:path=\(directory.file("no-bus-here")) (--bus): "))
        #expect(bus.detail.contains("No such file or directory"))
        #expect(bus.data["reachable"] == false)
        #expect(report.check("bluez")?.status == .skipped)
        #expect(report.check("adapters")?.detail == "needs BlueZ (see dbus)")
        #expect(report.exitStatus == 1)
    }

    @Test func theBusAddressComesFromTheFlagThenTheEnvironment() async throws {
        let directory = try TemporaryDirectory()
        var inputs = DoctorInputs.isolated(in: directory)
        inputs.busAddress = nil
        inputs.environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=\(directory.file("env-bus"))"
        let fromEnvironment = try #require(await Doctor(inputs: inputs).run().check("dbus"))
        #expect(fromEnvironment.data["source"] == "DBUS_SYSTEM_BUS_ADDRESS")
        #expect(fromEnvironment.data["address"] == .string("unix:path=\(directory.file("env-bus"))"))
        inputs.environment["DBUS_SYSTEM_BUS_ADDRESS"] = nil
        let standard = try #require(await Doctor(inputs: inputs).run().check("dbus"))
        #expect(standard.data["source"] == "default")
        #expect(standard.data["address"] == .string("unix:path=\(directory.file("no-system-bus-here"))"))
        // The standard bus is the system bus's own socket (not asked here: it is this host's).
        #expect(DoctorInputs(version: "x", environment: [:]).standardBusAddress == "unix:path=/run/dbus/system_bus_socket")
    }
}
