import BlueZ
import TestSupport
import DBus
import FTMS
import RetryTiming
import Simulator
import Testing

extension SimulatorProcessTests {
    /// What real bluetoothd 5.66 does that simulators long did not, found by running the
    /// bridge against it in a VM: a Connect reply with no Connected=true signal, a machine
    /// already connected when the bridge starts, a second adapter the gateway must leave
    /// alone, RSSI 127. Each test failed before its fix.
    @Suite("What real bluetoothd does")
    struct RealBluetoothdOrderingTests {
        /// bluetoothd answered Connect with success and never signalled Connected=true: a
        /// successful reply means connected, so the link waits for ServicesResolved instead of
        /// judging the stale cache and disconnecting 1-16 ms later.
        @Test(arguments: ["connect-silent=1", "connect-reply-first=1"])
        func aConnectReplyIsAConnection(fault: String) async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--rate", "4", "--fault", fault])
            defer { rig.stop() }
            let link = try await rig.connectedLink("SF-Bike-0001")
            #expect(await link.info?.name == "SF-Bike-0001")
            let device = try rig.device("SF-Bike-0001")
            #expect(await rig.client.tree.properties(device, "org.bluez.Device1")?["Connected"]?.bool == true)
            // One Connect, no Disconnect: the first attempt held.
            let calls = try await rig.callLog().filter { $0.hasSuffix(device) }
            #expect(calls.filter { $0.hasPrefix("org.bluez.Device1.Connect") }.count == 1, "\(calls)")
            #expect(!calls.contains { $0.hasPrefix("org.bluez.Device1.Disconnect") }, "\(calls)")
        }

        /// A machine left connected (by a crashed instance or another client) does not
        /// advertise, and bluetoothd lists its GATT services in UUIDs instead of 0xFE01: it is
        /// found in BlueZ's objects and taken on its name and its Fitness Machine service.
        @Test func aMachineAlreadyConnectedIsFoundWithoutAdvertising() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--rate", "4", "--fault", "connected-at-start"])
            defer { rig.stop() }
            let device = try rig.device("SF-Bike-0001")
            #expect(await rig.waitFor("ServicesResolved") { $0.properties(device, "org.bluez.Device1")?["ServicesResolved"]?.bool == true })
            let uuids = await rig.client.tree.properties(device, "org.bluez.Device1")?["UUIDs"]?.strings ?? []
            #expect(!uuids.contains(MachineFilter.solidFocusUUID), "\(uuids)")
            let found = try await rig.client.locate(MachineTarget("SF-Bike-0001"), filter: MachineFilter(), timeout: .milliseconds(100))
            #expect(found.path == device)
            let link = MachineLink(client: rig.client, device: device)
            #expect(try await link.connect(timeout: .seconds(5), resolveTimeout: .seconds(5)).type == .bike)
            // Never discovered: found where it was.
            #expect(try await rig.callLog().contains { $0.hasPrefix("org.bluez.Adapter1.StartDiscovery") } == false)
        }

        /// A name that looks like a machine, with neither 0xFE01 advertised nor a Fitness
        /// Machine service in a GATT database, is still not taken.
        @Test func aDecoyWithoutEitherIsNotTaken() {
            let filter = MachineFilter()
            #expect(!filter.accepts(name: "SF-Bike-9", address: "A", uuids: [], gattServices: ["0000180a-0000-1000-8000-00805f9b34fb"]))
            #expect(filter.accepts(name: "SF-Bike-9", address: "A", uuids: [], gattServices: [MachineFilter.fitnessMachineUUID]))
            #expect(!filter.accepts(name: "Treadmill", address: "A", uuids: [], gattServices: [MachineFilter.fitnessMachineUUID]))
        }

        /// `machines.adapters = ["hci0"]`: discovery starts on hci0 only, and machines heard
        /// only on hci1 are not taken.
        @Test func discoveryStaysOnTheAllowedAdapters() async throws {
            let rig = try await SimulatorRig.start(["--adapters", "2", "--bikes", "2", "--visible-on", "one"])
            defer { rig.stop() }
            let filter = MachineFilter(adapters: ["hci0"])
            let found = try await rig.client.scan(for: .milliseconds(600), filter: filter)
            #expect(!found.isEmpty && found.allSatisfy { $0.adapter == "/org/bluez/hci0" }, "\(found)")
            let starts = try await rig.callLog().filter { $0.hasPrefix("org.bluez.Adapter1.StartDiscovery") }
            #expect(starts == ["org.bluez.Adapter1.StartDiscovery /org/bluez/hci0"], "\(starts)")
            try await rig.client.acquireDiscovery(filter: filter)
            let held = await rig.waitFor("hci0 Discovering") { $0.properties("/org/bluez/hci0", "org.bluez.Adapter1")?["Discovering"]?.bool == true }
            #expect(held)
            #expect(await rig.client.tree.properties("/org/bluez/hci1", "org.bluez.Adapter1")?["Discovering"]?.bool == false)
            await rig.client.releaseDiscovery()
        }

        /// After a bluetoothd restart the adapters come back one by one while the fleet and
        /// every supervisor looking for its machine hold discovery. A holder that comes after an
        /// adapter was powered on starts discovery there: before, only the first holder started
        /// it, so hci1 stayed silent until every holder let go (103 s in the VM, the rower heard
        /// only through it).
        @Test func aLaterHolderStartsDiscoveryOnAnAdapterPoweredSince() async throws {
            let rig = try await SimulatorRig.start(["--adapters", "2", "--bikes", "2", "--visible-on", "one"])
            defer { rig.stop() }
            let powered: @Sendable (String, Bool) -> @Sendable (ObjectTree) -> Bool = { path, on in
                { $0.properties(path, "org.bluez.Adapter1")?["Powered"]?.bool == on }
            }
            let discovering: @Sendable (String) -> @Sendable (ObjectTree) -> Bool = { path in
                { $0.properties(path, "org.bluez.Adapter1")?["Discovering"]?.bool == true }
            }
            try await rig.call("/org/bluez/hci1", "org.freedesktop.DBus.Properties", "Set", [.string("org.bluez.Adapter1"), .string("Powered"), .variant(.bool(false))])
            #expect(await rig.waitFor("hci1 powered off", powered("/org/bluez/hci1", false)))
            try await rig.client.acquireDiscovery(filter: MachineFilter())
            #expect(await rig.waitFor("hci0 discovering", discovering("/org/bluez/hci0")))
            try await rig.call("/org/bluez/hci1", "org.freedesktop.DBus.Properties", "Set", [.string("org.bluez.Adapter1"), .string("Powered"), .variant(.bool(true))])
            #expect(await rig.waitFor("hci1 powered on", powered("/org/bluez/hci1", true)))
            try await rig.client.acquireDiscovery(filter: MachineFilter())
            #expect(await rig.waitFor("hci1 discovering", discovering("/org/bluez/hci1")))
            // Both holders let go: both adapters stop.
            await rig.client.releaseDiscovery()
            await rig.client.releaseDiscovery()
            #expect(await rig.waitFor("both stopped") { tree in
                ["/org/bluez/hci0", "/org/bluez/hci1"].allSatisfy { tree.properties($0, "org.bluez.Adapter1")?["Discovering"]?.bool == false }
            })
        }

        /// A start whose reply came after its timeout (a busy bluetoothd, in the VM) leaves this
        /// client a session that bluetoothd knows and the client does not, and bluetoothd then
        /// answers every start InProgress. The client stops that session and starts again, so
        /// the adapter is searched (before: five InProgress, and the adapter left silent).
        @Test func aStaleSessionOfItsOwnIsStoppedAndStartedAgain() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1"])
            defer { rig.stop() }
            try await rig.call("/org/bluez/hci0", "org.bluez.Adapter1", "StartDiscovery")
            try await rig.client.acquireDiscovery(filter: MachineFilter())
            #expect(await rig.client.discoveringAdapters == ["/org/bluez/hci0"])
            let calls = try await rig.callLog().filter { $0.contains("Discovery ") }
            #expect(calls.contains("org.bluez.Adapter1.StopDiscovery /org/bluez/hci0"), "\(calls)")
            await rig.client.releaseDiscovery()
            #expect(await rig.waitFor("hci0 stopped") { $0.properties("/org/bluez/hci0", "org.bluez.Adapter1")?["Discovering"]?.bool == false })
        }

        /// After a bluetoothd restart a remembered machine is listed before its adapter is
        /// powered again, and a Connect through it fails at once ("Input/output error" in the
        /// VM, then a 5 s pause): a machine is found only through a powered adapter.
        @Test func aMachineIsFoundOnlyThroughAPoweredAdapter() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--known"])
            defer { rig.stop() }
            let device = try rig.device("SF-Bike-0001")
            let power: @Sendable (Bool) async throws -> Void = { on in
                try await rig.call("/org/bluez/hci0", "org.freedesktop.DBus.Properties", "Set", [.string("org.bluez.Adapter1"), .string("Powered"), .variant(.bool(on))])
                _ = await rig.waitFor("hci0 Powered \(on)") { $0.properties("/org/bluez/hci0", "org.bluez.Adapter1")?["Powered"]?.bool == on }
            }
            try await power(false)
            #expect(await rig.client.tree.paths(with: "org.bluez.Device1") == [device])
            await #expect(throws: BlueZError.self) {
                try await rig.client.locate(MachineTarget("SF-Bike-0001"), filter: MachineFilter(), timeout: .milliseconds(300))
            }
            try await power(true)
            #expect(try await rig.client.locate(MachineTarget("SF-Bike-0001"), filter: MachineFilter(), timeout: .seconds(2)).path == device)
        }

        /// A machine taken before (its target has an address) is reachable through every copy
        /// BlueZ has of that address, even one whose UUIDs no longer pass the filter; a machine
        /// known only by name still has to pass it.
        @Test func aTargetWithAnAddressCountsEveryCopyOfIt() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "0"])
            defer { rig.stop() }
            let path = try await rig.simulator.mock("AddFTMSMachine", [.string("hci0"), .string("C0:11:22:33:44:07"), .string("Treadmill-7"), .string("ftms")])
            let device = try #require(path.first?.string)
            #expect(await rig.waitFor("the device") { $0.properties(device, "org.bluez.Device1") != nil })
            let tree = await rig.client.tree
            #expect(tree.reachable(MachineTarget(name: "Treadmill-7", address: "C0:11:22:33:44:07"), passing: MachineFilter()).map(\.path) == [device])
            #expect(tree.reachable(MachineTarget(name: "Treadmill-7"), passing: MachineFilter()).isEmpty)
            #expect(tree.reachable(MachineTarget(address: "C0:11:22:33:44:07"), passing: MachineFilter(adapters: ["hci1"])).isEmpty)
        }

        /// A machine whose services never resolve from BlueZ's cached copy (a stale GATT cache:
        /// the VM after a bluetoothd restart) is forgotten after two such links (RemoveDevice),
        /// and connects once BlueZ discovers it afresh; before, every reconnect met the same cache.
        @Test func aStaleGattCacheIsForgottenAfterTwoUnresolvedLinks() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--rate", "4", "--known", "--fault", "no-resolve=50"])
            defer { rig.stop() }
            let supervisor = MachineSupervisor(
                client: rig.client, target: MachineTarget("SF-Bike-0001"),
                backoff: Backoff(initial: .milliseconds(50), maximum: .milliseconds(200)),
                timing: MachineSupervisor.Timing(locate: .seconds(3), connect: .seconds(2), resolve: .milliseconds(400)))
            let running = Task { await supervisor.run() }
            let stop = Task {
                try? await Task.sleep(for: .seconds(20))
                running.cancel()
            }
            var ready = false
            for await event in supervisor.events {
                if case .ready = event {
                    ready = true
                    break
                }
            }
            running.cancel()
            stop.cancel()
            await running.value
            #expect(ready, "never ready: \(rig.simulator.log.suffix(800))")
            let removals = try await rig.callLog().filter { $0.hasPrefix("org.bluez.Adapter1.RemoveDevice") }
            #expect(removals.count == 1, "\(removals)")
        }

        /// A supervisor's reader sees `.ready` before the first frame, even when frames flow
        /// during a slow Request Control.
        @Test func readyComesBeforeTheFirstFrame() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--rate", "50"])
            defer { rig.stop() }
            let device = try rig.device("SF-Bike-0001")
            _ = try await rig.client.scan(for: .milliseconds(200), filter: MachineFilter())
            try await rig.simulator.mock("SetWriteDelay", [.string(device), .uint32(300)])
            let supervisor = MachineSupervisor(client: rig.client, target: MachineTarget("SF-Bike-0001"))
            let running = Task { await supervisor.run() }
            var order: [String] = []
            var frames = 0
            for await event in supervisor.events {
                switch event {
                case .ready: order.append("ready")
                case .notification:
                    if order.last != "frame" { order.append("frame") }
                    frames += 1
                default: break
                }
                if frames >= 20 { break }
            }
            running.cancel()
            await running.value
            #expect(order == ["ready", "frame"], "\(order)")
        }
    }
}

@Suite("Discovered machines")
struct DiscoveredMachineTests {
    /// RSSI 127 is HCI's "not available", not a reading.
    @Test func rssi127IsNotAReading() throws {
        let base: ObjectTree.Properties = ["Address": .string("00:AA:01:01:00:01"), "Name": .string("SF-Bike-0001")]
        var properties = base
        properties["RSSI"] = .int16(127)
        #expect(try #require(DiscoveredMachine(path: "/org/bluez/hci0/dev_00_AA_01_01_00_01", properties: properties)).rssi == nil)
        properties["RSSI"] = .int16(-61)
        #expect(try #require(DiscoveredMachine(path: "/org/bluez/hci0/dev_00_AA_01_01_00_01", properties: properties)).rssi == -61)
    }
}
