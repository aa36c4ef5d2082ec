import BlueZ
import BlueZTesting
import TestSupport
import DBus
import Foundation
import Testing

/// A private dbus-daemon, `ftms-sim` on it as a real process, and our BlueZ client.
struct SimulatorRig {
    let bus: PrivateBus
    let simulator: SimulatedBlueZ
    let connection: DBusConnection
    let client: BlueZClient

    static func start(_ arguments: [String]) async throws -> SimulatorRig {
        let bus = try PrivateBus()
        do {
            let simulator = try await SimulatedBlueZ(bus: bus, arguments: arguments)
            let connection = try await DBusConnection.connect(address: bus.address)
            let client = BlueZClient(connection: connection)
            try await client.start()
            return SimulatorRig(bus: bus, simulator: simulator, connection: connection, client: client)
        } catch {
            bus.stop()
            throw error
        }
    }

    func stop() {
        connection.close()
        simulator.stop()
        bus.stop()
    }

    /// The Device1 path of the machine named `name` in the ready line.
    func device(_ name: String, adapter: String = "hci0") throws -> String {
        let address = try #require(simulator.machines[name], "\(name) not in '\(simulator.readyLine)'")
        return "/org/bluez/\(adapter)/dev_" + address.replacingOccurrences(of: ":", with: "_")
    }

    /// BlueZ calls the simulator logged (`Interface.Member path`), oldest first.
    func callLog() async throws -> [String] {
        (try await simulator.mock("GetCallLog").first?.strings) ?? []
    }

    /// Calls org.bluez as any client would; throws the D-Bus error.
    @discardableResult
    func call(_ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = []) async throws -> [DBusValue] {
        try await connection.call(destination: "org.bluez", path: path, interface: interface, member: member, arguments: arguments, timeout: .seconds(5))
    }

    /// The D-Bus error a call ends with, or nil when it succeeded.
    func failure(_ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = []) async -> DBusError? {
        do {
            try await call(path, interface, member, arguments)
            return nil
        } catch let error as DBusError {
            return error
        } catch {
            return .unexpectedReply("\(error)")
        }
    }

    /// Scans until BlueZ has `name` (one fixed window would be a bound on how fast the
    /// simulator answers: under load a 200 ms scan ended before the machine was found, and
    /// Connect met no object), then connects and takes control, as the bridge does.
    func connectedLink(_ name: String) async throws -> MachineLink {
        let device = try device(name)
        let client = client
        try await waitUntil("\(name) discovered") {
            _ = try? await client.scan(for: .milliseconds(200), filter: MachineFilter())
            return await client.tree.properties(device, "org.bluez.Device1") != nil
        }
        let link = MachineLink(client: client, device: device)
        _ = try await link.connect(timeout: .seconds(5), resolveTimeout: .seconds(5))
        return link
    }

    /// Waits until the simulator has logged `text`: proof it handled a call. The limit is a
    /// hang detector, not a bound on how fast the simulator is.
    func waitForLog(_ text: String, timeout: Duration = .seconds(60)) async throws {
        guard try await eventually(timeout, { simulator.log.contains(text) }) else {
            Issue.record("the simulator never logged '\(text)': \(simulator.log.suffix(1500))")
            return
        }
    }

    /// Waits for `condition` on the client's tree; records an issue if it never holds (a hang
    /// detector: a minute).
    func waitFor(_ what: String, timeout: Duration = .seconds(60), _ condition: @escaping @Sendable (ObjectTree) -> Bool) async -> Bool {
        let held = await client.wait(until: condition, timeout: timeout)
        if !held { Issue.record("timed out waiting for \(what); simulator log: \(simulator.log.suffix(1500))") }
        return held
    }
}
