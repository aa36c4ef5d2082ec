import BlueZ
import DBus
import Foundation
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

extension SimulatorProcessTests {
    @Suite("D-Bus semantics")
    struct BusSemanticsTests {
        /// libdbus's own wording: UnknownObject where nothing is registered, UnknownMethod
        /// for a wrong member, interface or signature on an object that exists.
        @Test func unknownObjectsMethodsAndSignatures() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--known"])
            defer { rig.stop() }
            let device = try rig.device("SF-Bike-0001")
            #expect(await rig.failure("/org/bluez/hci0/dev_00_00_00_00_00_00", "org.bluez.Device1", "Connect")
                == .remote(name: "org.freedesktop.DBus.Error.UnknownObject",
                           message: "Method \"Connect\" with signature \"\" on interface \"org.bluez.Device1\" doesn't exist\n"))
            #expect(await rig.failure(device, "org.bluez.Device1", "Connect", [.string("now")])
                == .remote(name: "org.freedesktop.DBus.Error.UnknownMethod",
                           message: "Method \"Connect\" with signature \"s\" on interface \"org.bluez.Device1\" doesn't exist\n"))
            #expect(await rig.failure(device, "org.bluez.Device1", "Explode")?.remoteName == "org.freedesktop.DBus.Error.UnknownMethod")
            #expect(await rig.failure(device, "org.bluez.Adapter1", "StartDiscovery")?.remoteName == "org.freedesktop.DBus.Error.UnknownMethod")
            #expect(await rig.failure("/org", "org.bluez.Device1", "Connect")?.remoteName == "org.freedesktop.DBus.Error.UnknownMethod")
        }

        @Test func propertiesGetGetAllSet() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--known"])
            defer { rig.stop() }
            let device = try rig.device("SF-Bike-0001")
            let properties = "org.freedesktop.DBus.Properties"
            #expect(try await rig.call(device, properties, "Get", [.string("org.bluez.Device1"), .string("Name")]).first == .variant(.string("SF-Bike-0001")))
            #expect(await rig.failure(device, properties, "Get", [.string("org.bluez.Device1"), .string("RSSI")])
                == .remote(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "No such property 'RSSI'"))
            #expect(await rig.failure(device, properties, "GetAll", [.string("org.bluez.Nothing")])
                == .remote(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "No such interface 'org.bluez.Nothing'"))
            #expect(await rig.failure(device, properties, "Set", [.string("org.bluez.Device1"), .string("Name"), .variant(.string("x"))])
                == .remote(name: "org.freedesktop.DBus.Error.PropertyReadOnly", message: "Property 'Name' is not writable"))
            #expect(await rig.failure(device, properties, "Set", [.string("org.bluez.Device1"), .string("Trusted"), .variant(.string("yes"))])?.remoteName
                == "org.bluez.Error.InvalidArguments")
            try await rig.call(device, properties, "Set", [.string("org.bluez.Device1"), .string("Trusted"), .variant(.bool(true))])
            await rig.client.sync()
            #expect(await rig.client.tree.properties(device, "org.bluez.Device1")?["Trusted"]?.bool == true)
            let all = try await rig.call(device, properties, "GetAll", [.string("org.bluez.Device1")]).first?.stringDictionary ?? [:]
            #expect(all["Address"]?.string == rig.simulator.machines["SF-Bike-0001"])
            // A device BlueZ knows from a connection lists its GATT services, not what it
            // advertised: 0xFE01 is gone, the Fitness Machine service is there.
            #expect(all["UUIDs"]?.strings?.contains("0000fe01-0000-1000-8000-00805f9b34fb") == false)
            #expect(all["UUIDs"]?.strings?.contains("00001826-0000-1000-8000-00805f9b34fb") == true)
            #expect(all["ManufacturerData"]?.signature == "v" && all["ServiceData"] != nil)
            // GetManagedObjects lists BlueZ's empty Introspectable and Properties entries.
            let objects = try await rig.call("/", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects").first
            let deviceEntry = objects?.dictionaryValue(for: .objectPath(device))?.stringDictionary
            #expect(deviceEntry.map { Set($0.keys) } == ["org.freedesktop.DBus.Introspectable", "org.freedesktop.DBus.Properties", "org.bluez.Device1"])
        }

        /// Every exported path introspects to well-formed XML listing its interfaces and children.
        @Test func introspectionIsValidXMLEverywhere() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--known"])
            defer { rig.stop() }
            let device = try rig.device("SF-Bike-0001")
            let paths = ["/", "/org", "/org/bluez", "/org/bluez/hci0", device] + (try await rig.simulator.gattPaths(device)).values.sorted()
            for path in paths {
                let xml = try await rig.call(path, "org.freedesktop.DBus.Introspectable", "Introspect").first?.string ?? ""
                let parser = XMLParser(data: Data(xml.utf8))
                #expect(parser.parse(), "\(path): \(xml)")
            }
            let deviceXML = try await rig.call(device, "org.freedesktop.DBus.Introspectable", "Introspect").first?.string ?? ""
            #expect(deviceXML.contains("<interface name=\"org.bluez.Device1\">") && deviceXML.contains("<node name=\"service000f\"/>"))
            #expect(deviceXML.contains("<property name=\"Trusted\" type=\"b\" access=\"readwrite\">"))
            let rootXML = try await rig.call("/org", "org.freedesktop.DBus.Introspectable", "Introspect").first?.string ?? ""
            #expect(rootXML.contains("<node name=\"bluez\"/>") && !rootXML.contains("<interface"))
        }

        /// The hot path works under repetition: 2,000 Properties.Get round trips answer the
        /// same value, and 300 notifications each reach a listener as their own signal, in
        /// order. How fast is measured by `scripts/bench-bluez-latency.sh --peer sim`, not here:
        /// a timed unit test only measures how busy the CI machine is.
        @Test func propertiesGetAndNotificationsUnderRepetition() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--known"])
            defer { rig.stop() }
            let device = try rig.device("SF-Bike-0001")
            for _ in 0..<2000 {
                let reply = try await rig.call(device, "org.freedesktop.DBus.Properties", "Get", [.string("org.bluez.Device1"), .string("Connected")])
                #expect(reply.first == .variant(.bool(false)))
            }

            // StartNotify: the notifications are PropertiesChanged signals (acquired, they would
            // be datagrams on a socket, which AcquireNotifyTests covers).
            _ = try await MachineLink(client: rig.client, device: device, acquire: false).connect(timeout: .seconds(5), resolveTimeout: .seconds(5))
            let data = try await rig.simulator.gattPaths(device)["2ad2"] ?? ""
            let watcher = try await DBusConnection.connect(address: rig.bus.address)
            defer { watcher.close() }
            let signals = try await watcher.signals(matching: MatchRule(interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged", path: data))
            var iterator = signals.makeAsyncIterator()
            for index in 0..<300 {
                let frame: [UInt8] = [0, 0, UInt8(index >> 8), UInt8(index & 0xFF)]
                try await rig.simulator.mock("NotifyValue", [.string(data), .string(frame.map { String(format: "%02x", $0) }.joined())])
                // The simulated rider streams its own Indoor Bike Data on the same characteristic
                // once it is notifying; those frames are longer than the test's 4 bytes, so they
                // are skipped rather than mistaken for an out-of-order notification.
                var value: [UInt8]?
                repeat {
                    let signal = await iterator.next()
                    value = signal.flatMap { $0.arguments.count >= 2 ? $0.arguments[1].stringDictionary?["Value"]?.bytes : nil }
                } while value.map({ $0.count != frame.count }) ?? false
                #expect(value == frame, "notification \(index)")
            }
        }
    }
}

extension DBusValue {
    /// The value stored under `key` in a dictionary value.
    func dictionaryValue(for key: DBusValue) -> DBusValue? {
        guard case .dictionary(_, _, let entries) = self else { return nil }
        return entries.first { $0.key == key }?.value
    }
}
