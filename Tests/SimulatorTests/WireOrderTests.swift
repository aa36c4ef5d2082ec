import BlueZ
import DBus
import Testing

extension SimulatorProcessTests {
    /// Replies among signals, as dbus-monitor sees them leave the simulator (docs/bluez.md "Objects and signals",
    /// §1.4): gdbus flushes queued signals before any reply.
    @Suite("Wire order")
    struct WireOrderTests {
        @Test func connectAndDisconnectOrderings() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--known"])
            defer { rig.stop() }
            let device = try rig.device("SF-Bike-0001")
            let monitor = try await BusMonitor(address: rig.bus.address)
            defer { monitor.stop() }
            let caller = try await DBusConnection.connect(address: rig.bus.address)
            defer { caller.close() }
            _ = try await caller.call(destination: "org.bluez", path: device, interface: "org.bluez.Device1", member: "Connect")
            var seen = try await monitor.wait { $0.contains { $0.changes("ServicesResolved", to: "true") } }
            let connected = seen.firstIndex { $0.changes("Connected", to: "true") }
            let reply = seen.firstIndex { $0.isReply(to: caller.uniqueName) }
            let resolved = seen.firstIndex { $0.changes("ServicesResolved", to: "true") }
            #expect(connected != nil && reply != nil && resolved != nil)
            #expect((connected ?? .max) < (reply ?? .min) && (reply ?? .max) < (resolved ?? .min), "Connected=true, reply, ServicesResolved")

            let before = seen.count
            _ = try await caller.call(destination: "org.bluez", path: device, interface: "org.bluez.Device1", member: "Disconnect")
            seen = Array(try await monitor.wait { $0.dropFirst(before).contains { $0.changes("Connected", to: "false") } }.dropFirst(before))
            let unresolved = seen.firstIndex { $0.changes("ServicesResolved", to: "false") }
            let disconnectReply = seen.firstIndex { $0.isReply(to: caller.uniqueName) }
            let disconnected = seen.firstIndex { $0.changes("Connected", to: "false") }
            #expect(unresolved != nil && disconnectReply != nil && disconnected != nil)
            #expect((unresolved ?? .max) < (disconnectReply ?? .min) && (disconnectReply ?? .max) < (disconnected ?? .min),
                    "ServicesResolved=false, reply, Connected=false")
        }

        /// The Control Point's response indication follows the WriteValue reply; `Notifying`
        /// precedes the StartNotify reply.
        @Test func controlPointIndicationFollowsTheWriteReply() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--known"])
            defer { rig.stop() }
            let device = try rig.device("SF-Bike-0001")
            let controlPoint = try await rig.simulator.gattPaths(device)["2ad9"] ?? ""
            let caller = try await DBusConnection.connect(address: rig.bus.address)
            defer { caller.close() }
            func call(_ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = []) async throws {
                _ = try await caller.call(destination: "org.bluez", path: path, interface: interface, member: member, arguments: arguments, timeout: .seconds(5))
            }
            try await call(device, "org.bluez.Device1", "Connect")
            let monitor = try await BusMonitor(address: rig.bus.address)
            defer { monitor.stop() }
            try await call(controlPoint, "org.bluez.GattCharacteristic1", "StartNotify")
            try await call(controlPoint, "org.bluez.GattCharacteristic1", "WriteValue", [.bytes([0x00]), .properties(["type": .string("request")])])
            let seen = try await monitor.wait { $0.contains { $0.isSignal && $0.body.contains("80 00 01") } }
            let replies = seen.indices.filter { seen[$0].isReply(to: caller.uniqueName) }
            let notifying = seen.firstIndex { $0.changes("Notifying", to: "true") }
            let indication = seen.firstIndex { $0.isSignal && $0.body.contains("80 00 01") }
            #expect(replies.count == 2 && notifying != nil && indication != nil)
            #expect((notifying ?? .max) < (replies.first ?? .min), "Notifying=true before the StartNotify reply")
            #expect((replies.last ?? .max) < (indication ?? .min), "the indication after the WriteValue reply")
        }
    }
}
