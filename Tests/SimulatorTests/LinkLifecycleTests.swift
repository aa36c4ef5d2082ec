import BlueZ
import TestSupport
import DBus
import Testing

extension SimulatorProcessTests {
    @Suite("Link life cycle")
    struct LinkLifecycleTests {
        /// A StartNotify session outlives the link (BlueZ registers it again on reconnect,
        /// the quirk bleak works around) and ends when its client leaves the bus.
        @Test func notifySessionsSurviveReconnectAndEndWithTheirClient() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--known", "--rate", "0"])
            defer { rig.stop() }
            let device = try rig.device("SF-Bike-0001")
            let data = try await rig.simulator.gattPaths(device)["2ad2"] ?? ""
            let subscriber = try await DBusConnection.connect(address: rig.bus.address)
            func call(_ path: String, _ interface: String, _ member: String) async throws {
                _ = try await subscriber.call(destination: "org.bluez", path: path, interface: interface, member: member, timeout: .seconds(5))
            }
            let resolved: @Sendable (ObjectTree) -> Bool = { $0.properties(device, "org.bluez.Device1")?["ServicesResolved"]?.bool == true }
            try await call(device, "org.bluez.Device1", "Connect")
            #expect(await rig.waitFor("resolved", resolved))
            try await call(data, "org.bluez.GattCharacteristic1", "StartNotify")
            let address = rig.simulator.machines["SF-Bike-0001"] ?? ""
            try await rig.simulator.mock("DisconnectDevice", [.string("hci0"), .string(address)])
            #expect(await rig.waitFor("link down") { $0.properties(device, "org.bluez.Device1")?["Connected"]?.bool == false })
            // Notifying is not reset by the link loss, and the stored session is not yet active.
            #expect(await rig.client.tree.properties(data, "org.bluez.GattCharacteristic1")?["Notifying"]?.bool == true)
            do {
                try await call(data, "org.bluez.GattCharacteristic1", "StartNotify")
                Issue.record("StartNotify on a stored, inactive session should be InProgress")
            } catch let error as DBusError {
                #expect(error.remoteName == "org.bluez.Error.InProgress")
            }
            let values = try await subscriber.signals(matching: MatchRule(interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged", path: data))
            try await call(device, "org.bluez.Device1", "Connect")
            #expect(await rig.waitFor("resolved again", resolved))
            // No new StartNotify: the notification reaches the old subscriber anyway.
            try await rig.simulator.mock("NotifyValue", [.string(data), .string("00 00 10 00")])
            for await signal in values {
                #expect(signal.arguments[1].stringDictionary?["Value"]?.bytes == [0x00, 0x00, 0x10, 0x00])
                break
            }
            subscriber.close()
            #expect(await rig.waitFor("Notifying=false") { $0.properties(data, "org.bluez.GattCharacteristic1")?["Notifying"]?.bool == false })
            await #expect(throws: DBusError.remote(name: "org.bluez.Mock.Error.NotNotifying", message: "\(data): device not connected or notifications not enabled")) {
                try await rig.simulator.mock("NotifyValue", [.string(data), .string("00 00")])
            }
        }

        /// RemoveDevice on a connected machine: disconnected first, then the object and its GATT
        /// objects go; discovery finds the machine again, as a new device without cache.
        @Test func removeDeviceDisconnectsThenRemoves() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--known"])
            defer { rig.stop() }
            let device = try rig.device("SF-Bike-0001")
            _ = try await MachineLink(client: rig.client, device: device).connect(timeout: .seconds(5), resolveTimeout: .seconds(5))
            try await rig.call("/org/bluez/hci0", "org.bluez.Adapter1", "RemoveDevice", [.objectPath(device)])
            #expect(await rig.waitFor("removal") { tree in !tree.objects.keys.contains { $0.hasPrefix(device) } })
            #expect(await rig.failure("/org/bluez/hci0", "org.bluez.Adapter1", "RemoveDevice", [.objectPath(device)])?.remoteName == "org.bluez.Error.DoesNotExist")
            // Scan windows until the machine is seen again: on a loaded machine the simulator's
            // next advertisement can miss one short window.
            var found: [DiscoveredMachine] = []
            for _ in 0..<20 where found.isEmpty {
                found = try await rig.client.scan(for: .milliseconds(300), filter: MachineFilter())
            }
            #expect(found.map(\.path) == [device])
            #expect(await rig.client.tree.paths(with: "org.bluez.GattService1").isEmpty)
        }

        /// bluez #1489: ServicesResolved=true before the GATT objects, which follow.
        @Test func earlyResolution() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--resolve-ms", "150", "--fault", "early-resolve=1"])
            defer { rig.stop() }
            _ = try await rig.client.scan(for: .milliseconds(200), filter: MachineFilter())
            let device = try rig.device("SF-Bike-0001")
            try await rig.call(device, "org.bluez.Device1", "Connect")
            #expect(await rig.waitFor("resolved") { $0.properties(device, "org.bluez.Device1")?["ServicesResolved"]?.bool == true })
            #expect(await rig.client.tree.paths(with: "org.bluez.GattCharacteristic1").isEmpty)
            #expect(await rig.waitFor("the late objects") { $0.paths(with: "org.bluez.GattCharacteristic1").count == 9 })
        }

        /// The restart fault from the command line, coming straight back (the bus may not yet
        /// have released the old name), while a client follows.
        @Test func aRestartFaultFromTheCommandLine() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--known", "--fault", "restart=400:0"])
            defer { rig.stop() }
            let generation = await rig.client.generation
            let device = try rig.device("SF-Bike-0001")
            // The client's generation counts cache rebuilds: one when the name goes, one when
            // it comes back with a tree.
            let deadline = ContinuousClock.now + .seconds(5)
            while ContinuousClock.now < deadline {
                let rebuilt = await rig.client.generation >= generation + 2
                if rebuilt, await rig.client.tree.paths(with: "org.bluez.Device1") == [device] { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(await rig.client.generation >= generation + 2, "\(rig.simulator.log)")
            #expect(await rig.client.tree.paths(with: "org.bluez.Device1") == [device])
            #expect(rig.simulator.log.contains("bluetoothd restarting") && rig.simulator.log.contains("bluetoothd back"))
        }
    }
}
