import BlueZTesting
import TestSupport
import DBus
import Foundation
import Synchronization
import Testing

extension SimulatorProcessTests {
    /// `ftms-sim --peripheral` against a stand-in for bluetoothd's peripheral side on a private
    /// dbus-daemon: the registration calls, the objects bluetoothd reads back, and the Control
    /// Point and notifications as bluetoothd drives them (the VM scenarios prove it against the
    /// real bluetoothd).
    @Suite("ftms-sim --peripheral")
    struct PeripheralModeTests {
        /// What the stand-in bluetoothd saw: registrations by the peripheral's unique name.
        final class Registrations: Sendable {
            let application = Mutex<(sender: String, path: String)?>(nil)
            let advertisement = Mutex<(sender: String, path: String)?>(nil)
            let advertisementRegistrations = Mutex(0)
            let unregistered = Mutex<[String]>([])
            /// Adapter1.Alias as set: the GAP name a connected client reads.
            let alias = Mutex<String?>(nil)
            /// Calls on /org/bluez/hci1, answered or not.
            let calls = Mutex(0)
            /// Whether /org/bluez/hci1 is there: a restarted bluetoothd owns its name before it
            /// has registered its adapters, and answers UnknownObject meanwhile.
            let adapterPresent: Mutex<Bool>

            init(adapterPresent: Bool = true) {
                self.adapterPresent = Mutex(adapterPresent)
            }
        }

        /// Owns org.bluez and serves GattManager1 and LEAdvertisingManager1 on /org/bluez/hci1.
        static func standIn(on bus: PrivateBus, adapterPresent: Bool = true) async throws -> (DBusConnection, Registrations) {
            let connection = try await DBusConnection.connect(address: bus.address)
            let seen = Registrations(adapterPresent: adapterPresent)
            // The handler before the name: a peripheral that calls the moment the name is owned
            // (a restarted bluetoothd) must find it there, or its one try goes unanswered and
            // uncounted (a fresh clone's CI timed out waiting for that try once).
            try connection.export(path: "/org/bluez/hci1") { call in
                let path = call.arguments.first?.string ?? ""
                let sender = call.message.sender ?? ""
                seen.calls.withLock { $0 += 1 }
                guard seen.adapterPresent.withLock({ $0 }) else {
                    return call.replier.fail(name: "org.freedesktop.DBus.Error.UnknownObject", message: "no /org/bluez/hci1 yet")
                }
                switch (call.interface, call.member) {
                case ("org.bluez.GattManager1", "RegisterApplication"): seen.application.withLock { $0 = (sender, path) }
                case ("org.bluez.LEAdvertisingManager1", "RegisterAdvertisement"):
                    seen.advertisement.withLock { $0 = (sender, path) }
                    seen.advertisementRegistrations.withLock { $0 += 1 }
                case (_, let member) where member.hasPrefix("Unregister"): seen.unregistered.withLock { $0.append(member) }
                case ("org.freedesktop.DBus.Properties", "Set") where call.arguments.dropFirst().first?.string == "Alias":
                    seen.alias.withLock { $0 = call.arguments.last?.string }
                default: return call.replier.fail(name: "org.freedesktop.DBus.Error.UnknownMethod", message: call.member)
                }
                call.replier.reply()
            }
            #expect(try await connection.requestName("org.bluez"))
            return (connection, seen)
        }

        static func start(_ bus: PrivateBus, _ arguments: [String]) throws -> ChildProcess {
            try ChildProcess(SimulatedBlueZ.builtBinary(), ["--peripheral", "--bus", bus.address] + arguments)
        }

        @Test func registersAnFTMSBikeAndAnAdvertisementThatBluetoothdCanRead() async throws {
            let bus = try PrivateBus()
            defer { bus.stop() }
            let (bluez, seen) = try await Self.standIn(on: bus)
            defer { bluez.close() }
            let peripheral = try Self.start(bus, ["--adapter", "hci1", "--machine", "bike:SF-Bike-0042", "--rate", "20"])
            defer { peripheral.stop() }
            try await waitUntil("ready line") { peripheral.stdout.contains("ready SF-Bike-0042 on hci1") }
            let application = try #require(seen.application.withLock { $0 })
            #expect(seen.alias.withLock { $0 } == "SF-Bike-0042", "the GAP name a connected gateway reads")
            let advertisement = try #require(seen.advertisement.withLock { $0 })

            // As bluetoothd's gdbus client reads them.
            let objects = try await bluez.call(
                destination: application.sender, path: application.path, interface: "org.freedesktop.DBus.ObjectManager",
                member: "GetManagedObjects")
            guard case .dictionary("o", _, let entries) = try #require(objects.first) else {
                Issue.record("GetManagedObjects is not a{oa{sa{sv}}}")
                return
            }
            var byUUID: [String: (path: String, properties: [String: DBusValue])] = [:]
            for entry in entries {
                guard let path = entry.key.string, let interfaces = entry.value.stringDictionary else { continue }
                for (_, properties) in interfaces {
                    if let properties = properties.stringDictionary, let uuid = properties["UUID"]?.string {
                        byUUID[String(uuid.prefix(8))] = (path, properties)
                    }
                }
            }
            for uuid in ["0000180a", "00001826", "00002a29", "00002a24", "00002acc", "00002ad2", "00002ada", "00002ad9", "00002ad6", "00002ad8"] {
                #expect(byUUID[uuid] != nil, "no \(uuid) in the application")
            }
            #expect(byUUID["00001801"] == nil, "bluetoothd serves its own Generic Attribute service")
            // The Fitness Machine service first: bluetoothd removes an application's services in
            // this order, a Service Changed each, and a gateway's bluetoothd 5.66 can miss the
            // second (docs/bluez.md).
            let services = entries.compactMap { entry in
                entry.value.stringDictionary?["org.bluez.GattService1"]?.stringDictionary?["UUID"]?.string.map { String($0.prefix(8)) }
            }
            #expect(services.first == "00001826", "services in the order bluetoothd reads them: \(services)")
            // Fixed start handles, 0x0200 on for hci1, so a restarted bluetoothd serving several
            // machines gives each the handles it had.
            let starts = ["0000180a", "00001826"].compactMap { byUUID[$0]?.properties["Handle"]?.unwrapped }
            #expect(Set(starts) == [.uint16(0x0200), .uint16(0x0220)], "\(starts)")
            #expect(byUUID["00002ad9"]?.properties["Flags"]?.strings == ["write", "indicate"])
            #expect(byUUID["00002ad2"]?.properties["Flags"]?.strings == ["notify"])
            let ad = try #require(try await bluez.call(
                destination: advertisement.sender, path: advertisement.path, interface: "org.freedesktop.DBus.Properties",
                member: "GetAll", arguments: [.string("org.bluez.LEAdvertisement1")]).first?.stringDictionary)
            #expect(ad["LocalName"]?.string == "SF-Bike-0042")
            #expect(ad["Type"]?.string == "peripheral")
            #expect(ad["ServiceUUIDs"]?.strings == ["0000fe01-0000-1000-8000-00805f9b34fb", "00001826-0000-1000-8000-00805f9b34fb"])

            // The Control Point and the data stream, as bluetoothd drives them for a client.
            let sender = application.sender
            let signals = try await bluez.signals(matching: MatchRule(
                sender: sender, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                pathNamespace: application.path))
            var iterator = signals.makeAsyncIterator()
            let data = try #require(byUUID["00002ad2"]?.path)
            let controlPoint = try #require(byUUID["00002ad9"]?.path)
            let characteristic = "org.bluez.GattCharacteristic1"
            _ = try await bluez.call(destination: sender, path: controlPoint, interface: characteristic, member: "StartNotify")
            _ = try await bluez.call(
                destination: sender, path: controlPoint, interface: characteristic, member: "WriteValue",
                arguments: [.bytes([0x04, 0x50]), .dictionary(key: "s", value: "v", [])])
            _ = try await bluez.call(
                destination: sender, path: controlPoint, interface: characteristic, member: "WriteValue",
                arguments: [.bytes([0x00]), .dictionary(key: "s", value: "v", [])])
            _ = try await bluez.call(
                destination: sender, path: controlPoint, interface: characteristic, member: "WriteValue",
                arguments: [.bytes([0x04, 0x50]), .dictionary(key: "s", value: "v", [])])
            _ = try await bluez.call(destination: sender, path: data, interface: characteristic, member: "StartNotify")
            var indications: [[UInt8]] = []
            var frames = 0
            while frames < 3, let signal = await iterator.next() {
                guard let value = signal.arguments.dropFirst().first?.stringDictionary?["Value"]?.bytes else { continue }
                if signal.path == controlPoint { indications.append(value) }
                if signal.path == data { frames += 1 }
            }
            // Not in control first (0x05), then Request Control and the level succeed.
            #expect(indications == [[0x80, 0x04, 0x05], [0x80, 0x00, 0x01], [0x80, 0x04, 0x01]])
            let features = try await bluez.call(
                destination: sender, path: try #require(byUUID["00002acc"]?.path), interface: characteristic, member: "ReadValue",
                arguments: [.dictionary(key: "s", value: "v", [])])
            #expect(features.first?.bytes?.count == 8)

            kill(peripheral.pid, SIGTERM)
            #expect(await peripheral.wait() == 0, "\(peripheral.stderr)")
            #expect(seen.unregistered.withLock { $0 }.sorted() == ["UnregisterAdvertisement", "UnregisterApplication"])
        }

        /// `--ride`: the peripheral notifies the capture's frames, byte for byte and in order.
        @Test func ridesACaptureFrameForFrame() async throws {
            let bus = try PrivateBus()
            defer { bus.stop() }
            let (bluez, seen) = try await Self.standIn(on: bus)
            defer { bluez.close() }
            let capture = "bike-steady.ftmscap"
            let peripheral = try Self.start(bus, [
                "--adapter", "hci1", "--machine", "bike:SF-Bike-0001", "--rate", "50", "--ride", "bike=" + CaptureFixture.path(capture),
            ])
            defer { peripheral.stop() }
            try await waitUntil("ready line") { peripheral.stdout.contains("ready SF-Bike-0001 on hci1") }
            let application = try #require(seen.application.withLock { $0 })
            let data = application.path + "/service2/char1"  // FTMS is the second service, 0x2AD2 its second characteristic
            let signals = try await bluez.signals(matching: MatchRule(
                sender: application.sender, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged", path: data))
            var iterator = signals.makeAsyncIterator()
            _ = try await bluez.call(destination: application.sender, path: data, interface: "org.bluez.GattCharacteristic1", member: "StartNotify")
            var frames: [[UInt8]] = []
            while frames.count < 5, let signal = await iterator.next() {
                if let value = signal.arguments.dropFirst().first?.stringDictionary?["Value"]?.bytes { frames.append(value) }
            }
            #expect(frames == Array(try CaptureFixture.frames(capture, on: .indoorBikeData).prefix(5)))
        }

        /// The adapter powered off and on (bluetoothd then advertises nothing): the machine
        /// registers its advertisement again, as firmware advertises whenever it has no link.
        @Test func advertisesAgainWhenItsAdapterIsPoweredOn() async throws {
            let bus = try PrivateBus()
            defer { bus.stop() }
            let (bluez, seen) = try await Self.standIn(on: bus)
            defer { bluez.close() }
            let peripheral = try Self.start(bus, ["--adapter", "hci1"])
            defer { peripheral.stop() }
            try await waitUntil("ready line") { peripheral.stdout.contains("ready SF-Bike-0001 on hci1") }
            #expect(seen.advertisementRegistrations.withLock { $0 } == 1)
            for powered in [false, true] {
                try bluez.emitSignal(
                    path: "/org/bluez/hci1", interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                    arguments: [.string("org.bluez.Adapter1"), .properties(["Powered": .bool(powered)]), .array(element: "s", [])])
            }
            try await waitUntil("a second RegisterAdvertisement") { seen.advertisementRegistrations.withLock { $0 } == 2 }
            #expect(seen.unregistered.withLock { $0 } == ["UnregisterAdvertisement"])
        }

        /// bluetoothd restarted (a crash under the package's Restart=on-failure): the new one owns
        /// `org.bluez` seconds before its adapters are registered. The machine tries once, then
        /// registers the moment its adapter appears (`InterfacesAdded`), as firmware simply keeps
        /// advertising: no polling (which gave up after 10 s, leaving a loaded gateway's bike
        /// silent for good) and no pause after the adapter is there.
        @Test func registersWithARestartedBluetoothdWhenItsAdapterAppears() async throws {
            let bus = try PrivateBus()
            defer { bus.stop() }
            let (first, _) = try await Self.standIn(on: bus)
            let peripheral = try Self.start(bus, ["--adapter", "hci1"])
            defer { peripheral.stop() }
            try await waitUntil("ready line") { peripheral.stdout.contains("ready SF-Bike-0001 on hci1") }
            first.close()
            let (restarted, seen) = try await Self.standIn(on: bus, adapterPresent: false)
            defer { restarted.close() }
            try await waitUntil("a first try with the new bluetoothd") { seen.calls.withLock { $0 } >= 1 }
            // Long enough for a poll every 500 ms (the old way) to have tried again several times.
            try await Task.sleep(for: .seconds(2))
            #expect(seen.calls.withLock { $0 } == 1, "tries while the adapter is absent: \(peripheral.stderr)")
            #expect(seen.application.withLock { $0 } == nil)
            seen.adapterPresent.withLock { $0 = true }
            try restarted.emitSignal(
                path: "/", interface: "org.freedesktop.DBus.ObjectManager", member: "InterfacesAdded",
                arguments: [
                    .objectPath("/org/bluez/hci1"),
                    .dictionary(key: "s", value: "a{sv}", [
                        DBusDictEntry(.string("org.bluez.Adapter1"), .properties(["Powered": .bool(true)])),
                        DBusDictEntry(.string("org.bluez.GattManager1"), .properties([:])),
                        DBusDictEntry(.string("org.bluez.LEAdvertisingManager1"), .properties([:])),
                    ]),
                ])
            try await waitUntil("the application and advertisement registered with the new bluetoothd") {
                seen.application.withLock { $0 } != nil && seen.advertisementRegistrations.withLock { $0 } == 1
            }
            #expect(seen.alias.withLock { $0 } == "SF-Bike-0001")
        }

        @Test func anAdapterWithoutBluetoothdIsOneLineAndStatus1() async throws {
            let bus = try PrivateBus()
            defer { bus.stop() }
            let peripheral = try Self.start(bus, ["--adapter", "hci7"])
            defer { peripheral.stop() }
            #expect(await peripheral.wait() == 1)
            #expect(peripheral.stderr.hasPrefix("ftms-sim: hci7: ") && peripheral.stderr.filter { $0 == "\n" }.count == 1, "\(peripheral.stderr)")
        }

        @Test(arguments: [
            ["--peripheral"], ["--peripheral", "--adapter", "bt0"], ["--peripheral", "--adapter", "hci1", "--machine", "plain:X"],
            ["--peripheral", "--adapter", "hci1", "--machine", "bike"], ["--peripheral", "--adapter", "hci1", "--fault", "connect-fail"],
            ["--adapter", "hci1"],
        ])
        func badPeripheralFlagsAreOneLineAndStatus2(_ arguments: [String]) async throws {
            let child = try ChildProcess(SimulatedBlueZ.builtBinary(), arguments + ["--bus", "unix:path=/nonexistent/socket"])
            defer { child.stop() }
            #expect(await child.wait() == 2, "\(child.stderr)")
            #expect(child.stderr.hasPrefix("ftms-sim: ") && child.stderr.filter { $0 == "\n" }.count == 1, "\(child.stderr)")
        }
    }
}
