import DBus

/// The objects a real peripheral registers with bluetoothd: the GATT application (services and
/// characteristics, from the same ``GattLayout`` the simulated bluetoothd exports) and the
/// advertisement.
///
/// bluetoothd reads the application through `GetManagedObjects` on its root, and the advertisement
/// through `Properties.GetAll`, so both are plain property dictionaries here. The Generic
/// Attribute service (0x1801) and the Client Characteristic Configuration descriptors are left
/// out: bluetoothd serves its own and adds a CCC to every characteristic that notifies or
/// indicates.
struct PeripheralTree: Sendable {
    struct Characteristic: Sendable {
        let path: String
        let uuid: UInt16
        let flags: [String]
        let value: [UInt8]
        let servicePath: String
    }

    struct Service: Sendable {
        let path: String
        let uuid: UInt16
        /// Where the service starts in bluetoothd's database (its `Handle` property).
        let handle: UInt16
    }

    /// Object paths cannot hold the `-` of machine names, so the root is numbered instead.
    let root: String
    let advertisementPath: String
    let services: [Service]
    let characteristics: [Characteristic]
    let advertisement: Advertisement
    let localName: String

    static let gattService = "org.bluez.GattService1"
    static let gattCharacteristic = "org.bluez.GattCharacteristic1"
    static let advertisementInterface = "org.bluez.LEAdvertisement1"

    /// Each service asks for a fixed start handle, `firstHandle` and every 0x20 after it, as a
    /// machine's firmware has fixed handles: bluetoothd otherwise numbers applications in the
    /// order they register, one database for all its adapters, so two machines served by one
    /// bluetoothd swapped handles whenever it restarted, and the gateway's GATT cache of them
    /// went stale (seen in the VM). The characteristics follow in order inside their service.
    init(machine: MachineSpec, root: String = "/org/ftmssim/peripheral0", firstHandle: UInt16 = 0x0100) {
        self.root = root
        advertisementPath = root + "/advertisement0"
        localName = machine.name
        advertisement = Advertisement(kind: machine.kind)
        var services: [Service] = []
        var characteristics: [Characteristic] = []
        for (serviceIndex, service) in GattLayout(kind: machine.kind).services.enumerated() where service.uuid != 0x1801 {
            let servicePath = root + "/service\(serviceIndex)"
            services.append(Service(path: servicePath, uuid: service.uuid, handle: firstHandle + 0x20 * UInt16(services.count)))
            for (index, characteristic) in service.characteristics.enumerated() {
                characteristics.append(Characteristic(
                    path: servicePath + "/char\(index)", uuid: characteristic.uuid, flags: characteristic.flags,
                    value: characteristic.value, servicePath: servicePath))
            }
        }
        self.services = services
        self.characteristics = characteristics
    }

    func characteristic(at path: String) -> Characteristic? {
        characteristics.first { $0.path == path }
    }

    func characteristic(uuid: UInt16) -> Characteristic? {
        characteristics.first { $0.uuid == uuid }
    }

    /// `GetManagedObjects`' answer: `a{oa{sa{sv}}}`.
    ///
    /// The Fitness Machine service comes first. bluetoothd adds an application's services in the
    /// order of this answer and, when the application goes, removes them in the same order, one
    /// Service Changed indication each. A client bluetoothd 5.66 (and BlueZ's master as of 2026)
    /// can drop the second of two such indications: when the second arrives while the first one's
    /// Database Hash read is under way, that read already stores the final hash, the second
    /// one's read then matches it ("DB Hash match: skipping discovery") and the services it
    /// found gone stay in the gateway's cache for good. Seen in the VM's `cache` scenario under
    /// load (the Fitness Machine service, then second, stayed listed). First, it always goes.
    func managedObjects() -> DBusValue {
        let ordered = services.filter { $0.uuid == 0x1826 } + services.filter { $0.uuid != 0x1826 }
        var entries: [DBusDictEntry] = ordered.map { service in
            DBusDictEntry(.objectPath(service.path), Self.interfaces([
                Self.gattService: ["UUID": .string(fullUUID(service.uuid)), "Primary": .bool(true),
                                   "Includes": .array(element: "o", []), "Handle": .uint16(service.handle)],
            ]))
        }
        entries += characteristics.map { characteristic in
            DBusDictEntry(.objectPath(characteristic.path), Self.interfaces([
                Self.gattCharacteristic: characteristicProperties(characteristic, value: characteristic.value, notifying: false),
            ]))
        }
        return .dictionary(key: "o", value: "a{sa{sv}}", entries)
    }

    func characteristicProperties(_ characteristic: Characteristic, value: [UInt8], notifying: Bool) -> [String: DBusValue] {
        var properties: [String: DBusValue] = [
            "UUID": .string(fullUUID(characteristic.uuid)), "Service": .objectPath(characteristic.servicePath),
            "Flags": .array(element: "s", characteristic.flags.map { .string($0) }), "Value": .bytes(value),
        ]
        if characteristic.flags.contains("notify") || characteristic.flags.contains("indicate") {
            properties["Notifying"] = .bool(notifying)
        }
        return properties
    }

    /// `LEAdvertisement1`'s properties (BlueZ 5.66 doc/advertising-api.txt): a connectable
    /// peripheral with the machine's name, its service UUIDs (0xFE01 and 0x1826 for SF machines),
    /// FTMS service data and the maker's data.
    func advertisementProperties() -> [String: DBusValue] {
        [
            "Type": .string("peripheral"),
            "LocalName": .string(localName),
            "ServiceUUIDs": .array(element: "s", advertisement.uuids.map { .string(fullUUID($0)) }),
            "ServiceData": .dictionary(key: "s", value: "v", advertisement.serviceData.sorted { $0.key < $1.key }.map {
                DBusDictEntry(.string(fullUUID($0.key)), .variant(.bytes($0.value)))
            }),
            "ManufacturerData": .dictionary(key: "q", value: "v", advertisement.manufacturerData.sorted { $0.key < $1.key }.map {
                DBusDictEntry(.uint16($0.key), .variant(.bytes($0.value)))
            }),
        ]
    }

    static func interfaces(_ interfaces: [String: [String: DBusValue]]) -> DBusValue {
        .dictionary(key: "s", value: "a{sv}", interfaces.sorted { $0.key < $1.key }.map {
            DBusDictEntry(.string($0.key), .properties($0.value))
        })
    }
}
