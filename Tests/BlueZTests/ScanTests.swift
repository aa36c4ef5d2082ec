import BlueZ
import BlueZTesting
import DBus
import Foundation
import Testing

/// Discovery against python-dbusmock's BlueZ, a fake we did not write.
@Suite("Scan against the dbusmock BlueZ", .serialized)
struct ScanTests {
    @Test func scanTakesExactlyTheMachinesThatAdvertiseFE01() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let fake = try await FakeBlueZ(bus: bus)
        defer { fake.stop() }
        try await fake.addAdapter("hci0")
        try await fake.addMachine(address: "C0:11:22:33:44:01", name: "SF-Bike-0001", kind: "bike")
        try await fake.addMachine(address: "C0:11:22:33:44:02", name: "SF-Rower-0002", kind: "rower")
        // A name that matches but no 0xFE01: not a SolidFocus machine.
        try await fake.addNameOnlyDevice(address: "C0:11:22:33:44:03", name: "SF-Bike-9999")
        // 0xFE01 but a name outside the allow-list.
        try await fake.addMachine(address: "C0:11:22:33:44:04", name: "Treadmill-1", kind: "bike")

        let connection = try await DBusConnection.connect(address: bus.address)
        defer { connection.close() }
        let client = BlueZClient(connection: connection)
        try await client.start()
        let machines = try await client.scan(for: .milliseconds(300), filter: MachineFilter())
        #expect(machines.map(\.name) == ["SF-Bike-0001", "SF-Rower-0002"])
        #expect(machines.map(\.type) == [.bike, .rower])
        #expect(machines.map(\.address) == ["C0:11:22:33:44:01", "C0:11:22:33:44:02"])
        #expect(machines.allSatisfy { $0.adapter == "/org/bluez/hci0" && $0.rssi != nil })

        // The same machines by address, and generic FTMS acceptance when asked for.
        let byAddress = await client.machines(passing: MachineFilter(namePatterns: [], addresses: ["c0:11:22:33:44:04"]))
        #expect(byAddress.map(\.name) == ["Treadmill-1"])
        let generic = await client.machines(passing: MachineFilter(namePatterns: [], acceptGenericFTMS: true))
        #expect(generic.map(\.name) == ["SF-Bike-0001", "SF-Rower-0002", "Treadmill-1"])
    }

    @Test func machinesAddedDuringTheScanAreSeen() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let fake = try await FakeBlueZ(bus: bus)
        defer { fake.stop() }
        try await fake.addAdapter("hci0")
        let connection = try await DBusConnection.connect(address: bus.address)
        defer { connection.close() }
        let client = BlueZClient(connection: connection)
        try await client.start()
        async let found = client.scan(for: .seconds(2), filter: MachineFilter())
        // Add the machine once discovery is really on, whatever the machine's load.
        let discovering = await client.wait(until: { $0.properties("/org/bluez/hci0", BlueZNames.adapter)?["Discovering"]?.bool == true }, timeout: .seconds(5))
        #expect(discovering)
        try await fake.addMachine(address: "C0:11:22:33:44:05", name: "SF-Rower-0005", kind: "rower")
        #expect(try await found.map(\.name) == ["SF-Rower-0005"])
    }

    /// The kernel refusing StartDiscovery for a while (another session starting) is retried.
    @Test func inProgressOnStartDiscoveryIsRetried() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let fake = try await FakeBlueZ(bus: bus)
        defer { fake.stop() }
        try await fake.addAdapter("hci0")
        try await fake.mock("SetDiscoveryFailures", [.string("hci0"), .uint32(3)])
        let connection = try await DBusConnection.connect(address: bus.address)
        defer { connection.close() }
        let client = BlueZClient(connection: connection)
        try await client.start()
        async let found = client.scan(for: .seconds(2), filter: MachineFilter())
        let discovering = await client.wait(until: { $0.properties("/org/bluez/hci0", BlueZNames.adapter)?["Discovering"]?.bool == true }, timeout: .seconds(8))
        #expect(discovering, "discovery never started after three InProgress refusals")
        try await fake.addMachine(address: "C0:11:22:33:44:05", name: "SF-Rower-0005", kind: "rower")
        #expect(try await found.map(\.name) == ["SF-Rower-0005"])
        let starts = try await fake.control.call(
            destination: "org.bluez", path: "/org/bluez/hci0", interface: "org.freedesktop.DBus.Mock", member: "GetMethodCalls",
            arguments: [.string("StartDiscovery")], timeout: .seconds(5))
        #expect(starts.first?.array?.count == 4, "\(starts)")
    }

    @Test func noAdapterIsAClearError() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let fake = try await FakeBlueZ(bus: bus)
        defer { fake.stop() }
        let connection = try await DBusConnection.connect(address: bus.address)
        defer { connection.close() }
        let client = BlueZClient(connection: connection)
        try await client.start()
        await #expect(throws: BlueZError.noAdapter) {
            _ = try await client.scan(for: .milliseconds(50), filter: MachineFilter())
        }
    }

    /// bluetoothd restarting: the cache empties, and fills again from the new owner.
    @Test func cacheFollowsABluetoothdRestart() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let fake = try await FakeBlueZ(bus: bus)
        try await fake.addAdapter("hci0")
        try await fake.addMachine(address: "C0:11:22:33:44:01", name: "SF-Bike-0001", kind: "bike")
        let connection = try await DBusConnection.connect(address: bus.address)
        defer { connection.close() }
        let client = BlueZClient(connection: connection)
        try await client.start()
        #expect(await client.machines(passing: MachineFilter()).count == 1)
        fake.stop()
        await client.wait { $0.paths(with: BlueZNames.device).isEmpty }
        let restarted = try await FakeBlueZ(bus: bus)
        defer { restarted.stop() }
        try await restarted.addAdapter("hci0")
        try await restarted.addMachine(address: "C0:11:22:33:44:07", name: "SF-Rower-0007", kind: "rower")
        await client.wait { !$0.paths(with: BlueZNames.device).isEmpty }
        #expect(await client.machines(passing: MachineFilter()).map(\.name) == ["SF-Rower-0007"])
    }
}

@Suite("Machine filter and object tree")
struct MachineFilterTests {
    @Test func globPatterns() {
        #expect(MachineFilter(namePatterns: ["SF-Bike-*"]).accepts(name: "SF-Bike-0001", address: "A", uuids: [MachineFilter.solidFocusUUID]))
        #expect(!MachineFilter(namePatterns: ["SF-Bike-*"]).accepts(name: "SF-Rower-1", address: "A", uuids: [MachineFilter.solidFocusUUID]))
        #expect(MachineFilter(namePatterns: ["SF-?ike-*"]).accepts(name: "SF-Bike-", address: "A", uuids: [MachineFilter.solidFocusUUID]))
        #expect(!MachineFilter().accepts(name: nil, address: "A", uuids: [MachineFilter.solidFocusUUID]))
        #expect(!MachineFilter().accepts(name: "SF-Bike-1", address: "A", uuids: []))
        #expect(MachineFilter().accepts(name: "SF-Bike-1", address: "A", uuids: ["0000FE01-0000-1000-8000-00805F9B34FB"]))
    }

    /// The VM's state: the machine tore its GATT server down while linked (bluetoothd followed the
    /// Service Changed indications and dropped its services from the cache), then came back.
    /// Its UUIDs are what is left of the cache, which bluetoothd no longer updates from
    /// advertisements; its service data is the latest advertisement's. Without the service data
    /// it was never taken on that adapter again.
    @Test func aMachineWhoseCacheLostItsServicesIsTakenOnItsServiceData() {
        let path = "/org/bluez/hci0/dev_00_AA_01_01_00_01"
        func tree(name: String, serviceData: DBusValue?) -> ObjectTree {
            var properties: [String: DBusValue] = [
                "Address": .string("00:AA:01:01:00:01"), "Name": .string(name), "Adapter": .objectPath("/org/bluez/hci0"),
                "UUIDs": .array(element: "s", [.string("00001800-0000-1000-8000-00805f9b34fb"), .string("00001801-0000-1000-8000-00805f9b34fb")]),
            ]
            if let serviceData { properties["ServiceData"] = serviceData }
            var tree = ObjectTree()
            tree.load(managedObjects: .dictionary(key: "o", value: "a{sa{sv}}", [
                DBusDictEntry(.objectPath(path), .dictionary(key: "s", value: "a{sv}", [DBusDictEntry(.string(BlueZNames.device), .properties(properties))])),
            ]))
            return tree
        }
        let ftmsData = DBusValue.properties([MachineFilter.fitnessMachineUUID: .bytes([0x01, 0x20, 0x00])])
        #expect(tree(name: "SF-Bike-0001", serviceData: nil).machines(passing: MachineFilter()).isEmpty)
        #expect(tree(name: "SF-Bike-0001", serviceData: ftmsData).machines(passing: MachineFilter()).map(\.path) == [path])
        // The name still decides, and only the Fitness Machine service's data counts.
        #expect(tree(name: "Treadmill", serviceData: ftmsData).machines(passing: MachineFilter()).isEmpty)
        let otherData = DBusValue.properties(["0000180d-0000-1000-8000-00805f9b34fb": .bytes([0x00])])
        #expect(tree(name: "SF-Bike-0001", serviceData: otherData).machines(passing: MachineFilter()).isEmpty)
        #expect(tree(name: "SF-Bike-0001", serviceData: .int32(7)).machines(passing: MachineFilter()).isEmpty)
    }

    /// Badly typed properties leave the tree unchanged instead of crashing or corrupting it.
    @Test func badlyTypedSignalsChangeNothing() {
        var tree = ObjectTree()
        tree.load(managedObjects: .dictionary(key: "o", value: "a{sa{sv}}", [
            DBusDictEntry(.objectPath("/org/bluez/hci0/dev_1"), .dictionary(key: "s", value: "a{sv}", [
                DBusDictEntry(.string(BlueZNames.device), .properties(["Address": .string("C0:11"), "Name": .string("SF-Bike-1")])),
            ])),
        ]))
        let before = tree
        let malformed: [DBusMessage] = [
            DBusMessage(kind: .signal, path: "/org/bluez/hci0/dev_1", interface: BlueZNames.properties, member: "PropertiesChanged", arguments: [.int32(1)]),
            DBusMessage(kind: .signal, path: "/org/bluez/hci0/dev_1", interface: BlueZNames.properties, member: "PropertiesChanged", arguments: [.string(BlueZNames.device), .string("not a dict")]),
            DBusMessage(kind: .signal, path: "/", interface: BlueZNames.objectManager, member: "InterfacesAdded", arguments: [.objectPath("/x"), .int32(3)]),
            DBusMessage(kind: .signal, path: "/", interface: BlueZNames.objectManager, member: "InterfacesRemoved", arguments: [.objectPath("/org/bluez/hci0/dev_1")]),
            DBusMessage(kind: .signal, path: "/nowhere", interface: BlueZNames.properties, member: "PropertiesChanged", arguments: [.string(BlueZNames.device), .properties(["RSSI": .int16(-3)]), .array(element: "s", [])]),
        ]
        for signal in malformed { tree.apply(signal) }
        #expect(tree == before)
        // A badly typed RSSI is stored as what it is, and reads back as no RSSI.
        tree.apply(DBusMessage(kind: .signal, path: "/org/bluez/hci0/dev_1", interface: BlueZNames.properties, member: "PropertiesChanged",
                               arguments: [.string(BlueZNames.device), .properties(["RSSI": .string("loud"), "UUIDs": .int32(1)]), .array(element: "s", [])]))
        let properties = tree.properties("/org/bluez/hci0/dev_1", BlueZNames.device) ?? [:]
        let machine = DiscoveredMachine(path: "/org/bluez/hci0/dev_1", properties: properties)
        #expect(machine?.rssi == nil)
        #expect(machine?.name == "SF-Bike-1")
    }
}
