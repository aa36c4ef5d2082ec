import BlueZ
import TestSupport
import DBus
import FTMS
import Synchronization
import Testing

extension SimulatorProcessTests {
    @Suite("Injected faults")
    struct FaultInjectionTests {
        /// The link drops after 15 frames: the client receives exactly those 15, then sees
        /// ServicesResolved=false and Connected=false, and nothing more arrives.
        @Test func aLinkDropMidStreamIsSeenByTheClient() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--rate", "50", "--fault", "link-drop=15"])
            defer { rig.stop() }
            let device = try rig.device("SF-Bike-0001")
            let link = try await rig.connectedLink("SF-Bike-0001")
            let frames = Mutex(0)
            let counter = Task {
                for await (characteristic, _) in await link.notifications() where characteristic == .indoorBikeData {
                    frames.withLock { $0 += 1 }
                }
            }
            defer { counter.cancel() }
            #expect(await rig.waitFor("Connected=false") {
                let properties = $0.properties(device, "org.bluez.Device1")
                return properties?["Connected"]?.bool == false && properties?["ServicesResolved"]?.bool == false
            })
            try await Task.sleep(for: .milliseconds(200))
            #expect(frames.withLock { $0 } == 15)
            #expect(rig.simulator.log.contains("link down SF-Bike-0001: link lost after 15 frames"))
        }

        /// A known machine switched off: Connect() finds nobody and fails as BlueZ does once
        /// the controller gives up; switched on, the next one works.
        @Test func aMachineThatIsOffRefusesConnectionsUntilSwitchedOn() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--known", "--fault", "switch-on=3000"])
            defer { rig.stop() }
            let device = try rig.device("SF-Bike-0001")
            let link = MachineLink(client: rig.client, device: device)
            do {
                _ = try await link.connect(timeout: .seconds(5), resolveTimeout: .seconds(2))
                Issue.record("a machine that is off should not connect")
            } catch let error as LinkError {
                #expect(error.description.contains("le-connection-abort-by-local"), "\(error)")
            }
            try await rig.waitForLog("SF-Bike-0001 awake")
            let again = MachineLink(client: rig.client, device: device)
            #expect(try await again.connect(timeout: .seconds(5), resolveTimeout: .seconds(5)).model == "SF-Bike-M1")
        }

        /// A machine never seen is not heard while off, and is heard once switched on.
        @Test func aMachineThatIsOffIsNotDiscoveredUntilSwitchedOn() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--fault", "switch-on=1500"])
            defer { rig.stop() }
            #expect(try await rig.client.scan(for: .milliseconds(800), filter: MachineFilter()).isEmpty)
            try await Task.sleep(for: .milliseconds(900))
            let found = try await rig.client.scan(for: .milliseconds(1200), filter: MachineFilter())
            #expect(found.map(\.name) == ["SF-Bike-0001"])
        }

        /// A ready machine that falls asleep drops its link; woken, it advertises again.
        @Test func aMachineThatSleepsDropsItsLinkAndWakes() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--known", "--rate", "10", "--fault", "sleep=800:1500"])
            defer { rig.stop() }
            let device = try rig.device("SF-Bike-0001")
            let link = try await rig.connectedLink("SF-Bike-0001")
            #expect(await rig.waitFor("Connected=false") { $0.properties(device, "org.bluez.Device1")?["Connected"]?.bool == false })
            // The dropped link is closed, as the supervisor closes it: left open, it would
            // subscribe again once the machine is back, and take the notifications from the
            // next link ("Notify acquired", seen when a loaded machine made it late enough).
            await link.close()
            #expect(rig.simulator.log.contains("link down SF-Bike-0001: the machine went to sleep"))
            try await rig.waitForLog("SF-Bike-0001 awake")
            let again = MachineLink(client: rig.client, device: device)
            #expect(try await again.connect(timeout: .seconds(5), resolveTimeout: .seconds(5)).model == "SF-Bike-M1")
        }

        /// le-connection-abort-by-local once, then services that never resolve, then a clean
        /// connection: each is a clear error, and the next attempt works.
        @Test func connectAbortAndServicesThatNeverResolve() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--known", "--fault", "connect-abort=1", "--fault", "no-resolve=1"])
            defer { rig.stop() }
            let device = try rig.device("SF-Bike-0001")
            let link = MachineLink(client: rig.client, device: device)
            do {
                _ = try await link.connect(timeout: .seconds(5), resolveTimeout: .seconds(2))
                Issue.record("the first connect should abort")
            } catch let error as LinkError {
                #expect(error.description.contains("le-connection-abort-by-local"), "\(error)")
            }
            await #expect(throws: LinkError.servicesNeverResolved) {
                _ = try await link.connect(timeout: .seconds(5), resolveTimeout: .milliseconds(400))
            }
            await link.disconnect()
            #expect(await rig.waitFor("Connected=false") { $0.properties(device, "org.bluez.Device1")?["Connected"]?.bool == false })
            let again = MachineLink(client: rig.client, device: device)
            #expect(try await again.connect(timeout: .seconds(5), resolveTimeout: .seconds(5)).model == "SF-Bike-M1")
        }

        /// Disconnect() while Connect() hangs cancels it with br-connection-canceled; a second
        /// Connect() meanwhile is "Operation already in progress".
        @Test func aHangingConnectIsCancelledByDisconnect() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--known", "--fault", "connect-hang=1"])
            defer { rig.stop() }
            let device = try rig.device("SF-Bike-0001")
            async let hanging = rig.failure(device, "org.bluez.Device1", "Connect")
            try await rig.waitForLog("connect SF-Bike-0001: hang")
            #expect(await rig.failure(device, "org.bluez.Device1", "Connect") == .remote(name: "org.bluez.Error.Failed", message: "Operation already in progress"))
            #expect(await rig.failure(device, "org.bluez.Device1", "Disconnect") == nil)
            #expect(await hanging == .remote(name: "org.bluez.Error.Failed", message: "br-connection-canceled"))
            // Disconnect when not connected is success in 5.66.
            #expect(await rig.failure(device, "org.bluez.Device1", "Disconnect") == nil)
        }

        /// bluetoothd restarts: clients see the name go and come back, the cache is rebuilt
        /// from a fresh tree (the connected machine is persisted, disconnected, no RSSI, its
        /// GATT services as UUIDs and no GATT objects, as 5.66 reloads it), the adapter is
        /// powered on again, and the machine can be connected again.
        @Test func aBluetoothdRestartMakesTheClientRebuildItsCache() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--rowers", "1", "--rate", "10"])
            defer { rig.stop() }
            let bike = try rig.device("SF-Bike-0001")
            let rower = try rig.device("SF-Rower-0001")
            let link = try await rig.connectedLink("SF-Bike-0001")
            let generation = await rig.client.generation
            try await rig.simulator.mock("RestartBluetoothd", [.uint32(300)])
            #expect(await rig.waitFor("the name to go") { $0.paths(with: "org.bluez.Device1").isEmpty })
            // The link dropped with bluetoothd; closed as the supervisor closes it, so that it
            // does not subscribe again under the next link once the machine is back.
            await link.close()
            #expect(await rig.waitFor("the tree to come back") { !$0.paths(with: "org.bluez.Adapter1").isEmpty })
            #expect(await rig.client.generation >= generation + 2)
            let tree = await rig.client.tree
            // Persisted: the bike (connected before) with its GATT cache; the rower, never
            // connected, is gone until discovery finds it again.
            #expect(tree.paths(with: "org.bluez.Device1") == [bike])
            #expect(tree.properties(bike, "org.bluez.Device1")?["Connected"]?.bool == false)
            #expect(tree.properties(bike, "org.bluez.Device1")?["RSSI"] == nil)
            #expect(tree.paths(with: "org.bluez.GattCharacteristic1").filter { $0.hasPrefix(bike + "/") }.isEmpty)
            let uuids = tree.properties(bike, "org.bluez.Device1")?["UUIDs"]?.strings ?? []
            #expect(uuids.contains("00001800-0000-1000-8000-00805f9b34fb") && uuids.contains(MachineFilter.fitnessMachineUUID), "\(uuids)")
            #expect(!uuids.contains(MachineFilter.solidFocusUUID), "\(uuids)")
            #expect(tree.properties(rower, "org.bluez.Device1") == nil)
            #expect(await rig.waitFor("hci0 powered again") { $0.properties("/org/bluez/hci0", "org.bluez.Adapter1")?["Powered"]?.bool == true })
            let again = MachineLink(client: rig.client, device: bike)
            #expect(try await again.connect(timeout: .seconds(5), resolveTimeout: .seconds(5)).manufacturer == "SolidFocus")
            #expect(await rig.client.tree.paths(with: "org.bluez.GattCharacteristic1").filter { $0.hasPrefix(bike + "/") }.count == 9)
            #expect(rig.simulator.log.contains("bluetoothd back"))
        }

        /// Power off drops the link (Connected=false) and power on lets it connect again.
        @Test func anAdapterPowerCycleDropsLinks() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--known"])
            defer { rig.stop() }
            let device = try rig.device("SF-Bike-0001")
            _ = try await MachineLink(client: rig.client, device: device).connect(timeout: .seconds(5), resolveTimeout: .seconds(5))
            try await rig.simulator.mock("SetPowered", [.string("hci0"), .bool(false)])
            #expect(await rig.waitFor("power off") {
                $0.properties(device, "org.bluez.Device1")?["Connected"]?.bool == false
                    && $0.properties("/org/bluez/hci0", "org.bluez.Adapter1")?["Powered"]?.bool == false
            })
            #expect(await rig.failure(device, "org.bluez.Device1", "Connect") == .remote(name: "org.bluez.Error.Failed", message: "Input/output error"))
            try await rig.simulator.mock("SetPowered", [.string("hci0"), .bool(true)])
            #expect(try await MachineLink(client: rig.client, device: device).connect(timeout: .seconds(5), resolveTimeout: .seconds(5)).type == .bike)
        }
    }
}
