public import DBus
import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// python-dbusmock's `bluez5` template extended with SolidFocus FTMS machines
/// (`Tests/Fixtures/dbusmock/ftms_bluez.py`), running as a real process on a ``PrivateBus``.
///
/// A BlueZ fake we did not write: its Adapter1/Device1 behaviour is dbusmock's, so our client
/// is tested against someone else's reading of BlueZ, not only our own simulator's.
public final class FakeBlueZ: @unchecked Sendable {
    public let bus: PrivateBus
    /// A connection for driving the fake's `org.bluez.Mock` controls.
    public let control: DBusConnection
    private var pid: pid_t = 0

    /// The template in this repository (`Tests/Fixtures/dbusmock/ftms_bluez.py`), found from
    /// this file's own place in the tree.
    public static let repositoryTemplate = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tests/Fixtures/dbusmock/ftms_bluez.py").path

    /// Starts the fake from `template` and waits until it owns `org.bluez`.
    public init(bus: PrivateBus, template: String = FakeBlueZ.repositoryTemplate) async throws {
        self.bus = bus
        do {
            pid = try spawnChild(
                ["/usr/bin/python3", "-m", "dbusmock", "--system", "--template", template],
                stderr: .file(bus.directoryPath + "/fake-bluez.log"), extraEnvironment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        } catch {
            throw BusStartError(description: "the fake BlueZ: \(error)")
        }
        control = try await DBusConnection.connect(address: bus.address)
        let deadline = ContinuousClock.now + .seconds(15)
        while try await control.nameOwner("org.bluez") == nil {
            guard ContinuousClock.now < deadline else {
                throw BusStartError(description: "the fake BlueZ did not take org.bluez (see \(bus.directoryPath)/fake-bluez.log)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Calls one of the fake's `org.bluez.Mock` controls.
    @discardableResult
    public func mock(_ member: String, _ arguments: [DBusValue] = []) async throws -> [DBusValue] {
        try await control.call(
            destination: "org.bluez", path: "/", interface: "org.bluez.Mock", member: member, arguments: arguments,
            timeout: .seconds(10))
    }

    @discardableResult
    public func addAdapter(_ name: String = "hci0") async throws -> String {
        try await mock("AddAdapter", [.string(name), .string("gateway")]).first?.string ?? ""
    }

    /// `kind` is "bike" or "rower"; returns the Device1 path.
    @discardableResult
    public func addMachine(adapter: String = "hci0", address: String, name: String, kind: String) async throws -> String {
        try await mock("AddFTMSMachine", [.string(adapter), .string(address), .string(name), .string(kind)]).first?.string ?? ""
    }

    /// A device whose name looks like a machine but which does not advertise 0xFE01.
    @discardableResult
    public func addNameOnlyDevice(adapter: String = "hci0", address: String, name: String) async throws -> String {
        try await mock("AddNameOnlyDevice", [.string(adapter), .string(address), .string(name)]).first?.string ?? ""
    }

    /// Kills the fake, as a crashing bluetoothd would go (reaped on a thread of its own).
    public func kill() {
        guard pid > 0 else { return }
        ChildExit.killInBackground(pid)
        pid = 0
    }

    public func stop() {
        control.close()
        kill()
    }

    deinit { stop() }
}
