import BlueZ
import DBus
import FTMS
import Simulator
import Synchronization
import Testing

extension SimulatorProcessTests {
    @Suite("Connect sequence and notifications")
    struct ConnectSequenceTests {
        /// contract §2: Connect, Device Information, Feature, subscriptions, indications, then
        /// Request Control, as the simulator logged the calls.
        @Test func theConnectSequenceRunsInSpecOrder() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--rate", "20"])
            defer { rig.stop() }
            let link = try await rig.connectedLink("SF-Bike-0001")
            let info = await link.info
            #expect(info?.manufacturer == "SolidFocus" && info?.model == "SF-Bike-M1" && info?.type == .bike)
            #expect(info?.features?.supports(target: "resistance_target") == true)
            #expect(info?.resistanceRange?.minimum == 1 && info?.resistanceRange?.maximum == 24)

            let device = try rig.device("SF-Bike-0001")
            let calls = try await rig.callLog().filter { $0.hasSuffix(device) || $0.contains(device + "/") }
            func index(_ call: String) -> Int {
                calls.firstIndex(of: call) ?? Int.max
            }
            let paths = try await rig.simulator.gattPaths(device)
            let connect = index("org.bluez.Device1.Connect \(device)")
            let reads = ["2a29", "2a24", "2acc"].map { index("org.bluez.GattCharacteristic1.ReadValue \(paths[$0] ?? "")") }
            // Data and Status are acquired (notify); the Control Point indicates: StartNotify.
            let subscriptions = [("2ad2", "AcquireNotify"), ("2ada", "AcquireNotify"), ("2ad9", "StartNotify")].map { uuid, member in
                index("org.bluez.GattCharacteristic1.\(member) \(paths[uuid] ?? "")")
            }
            let requestControl = index("org.bluez.GattCharacteristic1.WriteValue \(paths["2ad9"] ?? "")")
            #expect(connect == 0, "\(calls)")
            #expect(reads == reads.sorted() && reads.allSatisfy { $0 > connect && $0 < Int.max }, "\(calls)")
            #expect(subscriptions == subscriptions.sorted() && (reads.last ?? 0) < (subscriptions.first ?? 0), "\(calls)")
            #expect((subscriptions.last ?? Int.max) < requestControl && requestControl < Int.max, "\(calls)")
            #expect(try await rig.simulator.writes(paths["2ad9"] ?? "") == [[0x00]])
        }

        /// The frames a client receives are exactly the rider model's, for the same seed
        /// and rate, from the first to the last, decoded and in order.
        @Test func notificationsArriveDecodedAndInOrder() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--rowers", "1", "--rate", "25", "--seed", "77"])
            defer { rig.stop() }
            let specs = SimulatorConfiguration.gym(bikes: 1, rowers: 1, rate: 25, seed: 77).machines
            for (name, spec, characteristic) in [("SF-Bike-0001", specs[0], Characteristic.indoorBikeData), ("SF-Rower-0001", specs[1], .rowerData)] {
                let link = try await rig.connectedLink(name)
                var model = RiderModel(type: spec.kind == .rower ? .rower : .bike, seed: spec.seed)
                let expected = (0..<40).compactMap { _ in model.nextFrame(after: .seconds(1 / 25.0)) }
                var received: [[UInt8]] = []
                for await (source, value) in await link.notifications() where source == characteristic {
                    received.append(value)
                    if received.count == expected.count { break }
                }
                #expect(received == expected, "\(name)")
                let kind: DataRecord.Kind = characteristic == .rowerData ? .rowerData : .indoorBikeData
                let records = received.map { DataRecord(kind: kind, decoding: $0) }
                #expect(records.allSatisfy { !$0.truncated && $0.trailingBytes == 0 && $0.implausibleFields.isEmpty })
                let distances = records.compactMap { $0.values.value(.totalDistance) }
                #expect(distances == distances.sorted() && distances.count == expected.count)
                await link.disconnect()
            }
        }

        /// Known machines (cached GATT) resolve without InterfacesAdded; a first connection
        /// exports the objects, parents first, before ServicesResolved.
        @Test func aFirstConnectionExportsTheGattObjectsBeforeServicesResolved() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1"])
            defer { rig.stop() }
            _ = try await rig.client.scan(for: .milliseconds(200), filter: MachineFilter())
            let device = try rig.device("SF-Bike-0001")
            let watcher = try await DBusConnection.connect(address: rig.bus.address)
            defer { watcher.close() }
            let signals = try await watcher.signals(matchingAny: [
                MatchRule(interface: "org.freedesktop.DBus.ObjectManager", member: "InterfacesAdded"),
                MatchRule(interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged", path: device),
            ])
            _ = try await watcher.call(destination: "org.bluez", path: device, interface: "org.bluez.Device1", member: "Connect")
            var added: [String] = []
            for await signal in signals {
                if signal.member == "InterfacesAdded", let path = signal.arguments.first?.string { added.append(path) }
                if signal.arguments.count > 1, signal.arguments[1].stringDictionary?["ServicesResolved"]?.bool == true { break }
            }
            #expect(added.count == 16, "\(added)")
            #expect(added.first == device + "/service0001")
            for (index, path) in added.enumerated() {
                let parent = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
                #expect(parent == device || added[..<index].contains(parent), "\(path) came before its parent")
            }
        }
    }
}
