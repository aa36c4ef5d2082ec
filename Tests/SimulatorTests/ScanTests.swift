import BlueZ
import TestSupport
import DBus
import Testing

extension SimulatorProcessTests {
    @Suite("Discovery")
    struct ScanTests {
        /// Another client discovers without a filter, so BlueZ's merged filters let the
        /// look-alike and the other maker's bike through to us too: the client must still
        /// take exactly the machines that advertise 0xFE01.
        @Test func scanFindsExactlyTheMachinesAdvertisingFE01() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "2", "--rowers", "1", "--name-only", "1", "--generic-ftms", "1"])
            defer { rig.stop() }
            #expect(await rig.client.machines(passing: MachineFilter()).isEmpty, "nothing is known before discovery")
            let other = try await DBusConnection.connect(address: rig.bus.address)
            defer { other.close() }
            _ = try await other.call(destination: "org.bluez", path: "/org/bluez/hci0", interface: "org.bluez.Adapter1", member: "StartDiscovery")

            let machines = try await rig.client.scan(for: .milliseconds(400), filter: MachineFilter())
            #expect(machines.map(\.name) == ["SF-Bike-0001", "SF-Bike-0002", "SF-Rower-0001"])
            #expect(machines.map(\.type) == [.bike, .bike, .rower])
            #expect(machines.allSatisfy { $0.rssi != nil && $0.adapter == "/org/bluez/hci0" })
            let tree = await rig.client.tree
            let names = tree.paths(with: "org.bluez.Device1").compactMap { tree.properties($0, "org.bluez.Device1")?["Name"]?.string }
            #expect(Set(names) == ["SF-Bike-0001", "SF-Bike-0002", "SF-Rower-0001", "SF-Bike-9001", "FTMS-Bike-01"],
                    "the unfiltered client's devices leaked into our view")
            let generic = await rig.client.machines(passing: MachineFilter(namePatterns: [], acceptGenericFTMS: true))
            #expect(generic.map(\.name).contains("FTMS-Bike-01"))
        }

        /// Our own filter alone keeps the look-alikes out of BlueZ's reports altogether.
        @Test func theDiscoveryFilterIsApplied() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--name-only", "2", "--generic-ftms", "1"])
            defer { rig.stop() }
            _ = try await rig.client.scan(for: .milliseconds(300), filter: MachineFilter())
            #expect(await rig.client.tree.paths(with: "org.bluez.Device1") == [try rig.device("SF-Bike-0001")])
        }

        /// A machine connected before is on the bus from the start, without RSSI; discovery
        /// gives it one, and stopping discovery invalidates it again.
        @Test func aKnownMachineExistsWithoutRSSIUntilHeard() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--known"])
            defer { rig.stop() }
            let device = try rig.device("SF-Bike-0001")
            let before = await rig.client.tree
            #expect(before.properties(device, "org.bluez.Device1")?["RSSI"] == nil)
            #expect(before.properties(device, "org.bluez.Device1")?["Connected"]?.bool == false)
            #expect(before.paths(with: "org.bluez.GattCharacteristic1").filter { $0.hasPrefix(device) }.count == 9)
            let found = try await rig.client.scan(for: .milliseconds(300), filter: MachineFilter())
            #expect(found.first?.rssi != nil)
            #expect(await rig.waitFor("RSSI invalidated") { $0.properties(device, "org.bluez.Device1")?["RSSI"] == nil })
        }

        @Test func discoveryErrorsAsBlueZGivesThem() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--fault", "discovery-fails=1"])
            defer { rig.stop() }
            let adapter = "/org/bluez/hci0"
            #expect(await rig.failure(adapter, "org.bluez.Adapter1", "StopDiscovery") == .remote(name: "org.bluez.Error.Failed", message: "No discovery started"))
            // The kernel refused once: InProgress, and no session.
            #expect(await rig.failure(adapter, "org.bluez.Adapter1", "StartDiscovery")?.remoteName == "org.bluez.Error.InProgress")
            #expect(await rig.failure(adapter, "org.bluez.Adapter1", "StartDiscovery") == nil)
            #expect(await rig.failure(adapter, "org.bluez.Adapter1", "StartDiscovery") == .remote(name: "org.bluez.Error.InProgress", message: "Operation already in progress"))
            #expect(await rig.waitFor("Discovering") { $0.properties(adapter, "org.bluez.Adapter1")?["Discovering"]?.bool == true })
            let badFilter = DBusValue.properties(["RSSI": .int16(-200)])
            #expect(await rig.failure(adapter, "org.bluez.Adapter1", "SetDiscoveryFilter", [badFilter])?.remoteName == "org.bluez.Error.InvalidArguments")
            // Power off ends the session; the adapter is then NotReady.
            try await rig.simulator.mock("SetPowered", [.string("hci0"), .bool(false)])
            #expect(await rig.waitFor("Discovering and Powered off") {
                let adapter = $0.properties(adapter, "org.bluez.Adapter1")
                return adapter?["Discovering"]?.bool == false && adapter?["Powered"]?.bool == false
            })
            #expect(await rig.failure(adapter, "org.bluez.Adapter1", "StartDiscovery")?.remoteName == "org.bluez.Error.NotReady")
            // Set(Powered) answers after the change is out.
            try await rig.call(adapter, "org.freedesktop.DBus.Properties", "Set", [.string("org.bluez.Adapter1"), .string("Powered"), .variant(.bool(true))])
            await rig.client.sync()
            #expect(await rig.client.tree.properties(adapter, "org.bluez.Adapter1")?["Powered"]?.bool == true)
        }

        /// Badly typed properties (RSSI as a string, dbusmock's `aa{qv}`) must not stop a scan.
        @Test func badlyTypedPropertiesDoNotBreakTheClient() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--fault", "bad-types"])
            defer { rig.stop() }
            let machines = try await rig.client.scan(for: .milliseconds(300), filter: MachineFilter())
            #expect(machines.map(\.name) == ["SF-Bike-0001"])
            #expect(machines.first?.rssi == nil)
            let device = try rig.device("SF-Bike-0001")
            let properties = await rig.client.tree.properties(device, "org.bluez.Device1")
            #expect(properties?["ManufacturerData"]?.signature == "aa{qv}")
        }

        /// `ServiceData` is what bluetoothd heard, as 5.66 lists it: the full UUID to the bytes
        /// in a variant, in its memory only. A restarted bluetoothd reloads the machine without
        /// it, and the next advertisement heard brings it back in a PropertiesChanged.
        @Test func serviceDataIsWhatBluetoothdHeard() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--known"])
            defer { rig.stop() }
            let device = try rig.device("SF-Bike-0001")
            let fitnessMachineData = DBusValue.variant(.bytes([0x01, 0x20, 0x00]))
            func serviceData(_ tree: ObjectTree) -> [String: DBusValue]? {
                tree.properties(device, "org.bluez.Device1")?["ServiceData"]?.stringDictionary
            }
            #expect(serviceData(await rig.client.tree) == [MachineFilter.fitnessMachineUUID: fitnessMachineData])
            try await rig.simulator.mock("RestartBluetoothd", [.uint32(100)])
            #expect(await rig.waitFor("the name to go") { $0.paths(with: "org.bluez.Device1").isEmpty })
            #expect(await rig.waitFor("the machine reloaded") { $0.properties(device, "org.bluez.Device1") != nil })
            #expect(serviceData(await rig.client.tree) == nil, "a restarted bluetoothd has heard nothing yet")
            #expect(await rig.waitFor("hci0 powered again") { $0.properties("/org/bluez/hci0", "org.bluez.Adapter1")?["Powered"]?.bool == true })
            _ = try await rig.client.scan(for: .milliseconds(300), filter: MachineFilter())
            #expect(serviceData(await rig.client.tree) == [MachineFilter.fitnessMachineUUID: fitnessMachineData])
        }

        /// The stale cache the VM's `cache` scenario reproduces with real 5.66: the machine's GATT
        /// server went while it was linked, bluetoothd followed its Service Changed and dropped
        /// its services, and its `UUIDs` keep only GAP and GATT. It is still a machine, and a
        /// scan still finds it, on the Fitness Machine service data it advertises.
        @Test func aMachineWhoseServerWentWhileLinkedIsFoundOnItsServiceData() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1"])
            defer { rig.stop() }
            let device = try rig.device("SF-Bike-0001")
            #expect(try await rig.client.scan(for: .milliseconds(300), filter: MachineFilter()).map(\.path) == [device])
            try await rig.call(device, "org.bluez.Device1", "Connect")
            #expect(await rig.waitFor("services resolved") { $0.properties(device, "org.bluez.Device1")?["ServicesResolved"]?.bool == true })
            try await rig.simulator.mock("DropServices", [.string(device)])
            #expect(await rig.waitFor("the services dropped") { !$0.paths(with: "org.bluez.GattService1").contains { $0.hasPrefix(device + "/") } })
            try await rig.call(device, "org.bluez.Device1", "Disconnect")
            // As bluetoothd does, the reply may come before Connected goes false (a fresh clone's
            // CI read the tree in between once).
            #expect(await rig.waitFor("the link gone") { $0.properties(device, "org.bluez.Device1")?["Connected"]?.bool == false })
            let tree = await rig.client.tree
            let properties = tree.properties(device, "org.bluez.Device1")
            #expect(properties?["UUIDs"]?.strings == ["00001800-0000-1000-8000-00805f9b34fb", "00001801-0000-1000-8000-00805f9b34fb"])
            #expect(properties?["ServiceData"]?.stringDictionary.map { Array($0.keys) } == [MachineFilter.fitnessMachineUUID])
            #expect(tree.machines(passing: MachineFilter()).map(\.path) == [device])
            let found = try await rig.client.scan(for: .milliseconds(300), filter: MachineFilter())
            #expect(found.map(\.path) == [device])
            #expect(found.first?.rssi != nil)
            // The next resolved link brings the services back.
            try await rig.call(device, "org.bluez.Device1", "Connect")
            #expect(await rig.waitFor("services resolved again") {
                $0.properties(device, "org.bluez.Device1")?["UUIDs"]?.strings?.contains(MachineFilter.fitnessMachineUUID) == true
                    && $0.properties(device, "org.bluez.Device1")?["ServicesResolved"]?.bool == true
            })
        }
    }
}
