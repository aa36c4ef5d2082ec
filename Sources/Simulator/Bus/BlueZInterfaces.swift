/// The interfaces the simulator exports, with BlueZ 5.66's method signatures, property types
/// and property order (`src/adapter.c`, `src/device.c`, `src/gatt-client.c`, `gdbus/object.c`).
///
/// AcquireNotify and AcquireWrite are left out on purpose: they hand out file descriptors, which
/// the DBus binding does not carry, so the characteristic has no `NotifyAcquired` either.
extension InterfaceSchema {
    static let properties = InterfaceSchema(
        BusNames.properties,
        methods: [
            method("Get", [("interface", "s"), ("name", "s")], [("value", "v")]),
            method("Set", [("interface", "s"), ("name", "s"), ("value", "v")]),
            method("GetAll", [("interface", "s")], [("properties", "a{sv}")]),
        ],
        signals: [
            Signal(name: "PropertiesChanged", arguments: [
                Argument(name: "interface", type: "s"), Argument(name: "changed_properties", type: "a{sv}"),
                Argument(name: "invalidated_properties", type: "as"),
            ])
        ])

    static let introspectable = InterfaceSchema(
        BusNames.introspectable, methods: [method("Introspect", [], [("xml", "s")])])

    static let objectManager = InterfaceSchema(
        BusNames.objectManager,
        methods: [method("GetManagedObjects", [], [("objects", "a{oa{sa{sv}}}")])],
        signals: [
            Signal(name: "InterfacesAdded", arguments: [Argument(name: "object", type: "o"), Argument(name: "interfaces", type: "a{sa{sv}}")]),
            Signal(name: "InterfacesRemoved", arguments: [Argument(name: "object", type: "o"), Argument(name: "interfaces", type: "as")]),
        ])

    static let agentManager = InterfaceSchema(
        BusNames.agentManager,
        methods: [
            method("RegisterAgent", [("agent", "o"), ("capability", "s")]),
            method("UnregisterAgent", [("agent", "o")]),
            method("RequestDefaultAgent", [("agent", "o")]),
        ])

    static let profileManager = InterfaceSchema(
        BusNames.profileManager,
        methods: [
            method("RegisterProfile", [("profile", "o"), ("UUID", "s"), ("options", "a{sv}")]),
            method("UnregisterProfile", [("profile", "o")]),
        ])

    static let adapter = InterfaceSchema(
        BusNames.adapter,
        methods: [
            method("StartDiscovery"),
            method("SetDiscoveryFilter", [("properties", "a{sv}")]),
            method("StopDiscovery"),
            method("RemoveDevice", [("device", "o")]),
            method("GetDiscoveryFilters", [], [("filters", "as")]),
        ],
        properties: [
            property("Address", "s"), property("AddressType", "s"), property("Name", "s"),
            property("Alias", "s", writable: true), property("Class", "u"), property("Powered", "b", writable: true),
            property("Discoverable", "b", writable: true), property("DiscoverableTimeout", "u", writable: true),
            property("Pairable", "b", writable: true), property("PairableTimeout", "u", writable: true),
            property("Discovering", "b"), property("UUIDs", "as"), property("Modalias", "s"), property("Roles", "as"),
        ])

    static let device = InterfaceSchema(
        BusNames.device,
        methods: [
            method("Disconnect"), method("Connect"),
            method("ConnectProfile", [("UUID", "s")]), method("DisconnectProfile", [("UUID", "s")]),
            method("Pair"), method("CancelPairing"),
        ],
        properties: [
            property("Address", "s"), property("AddressType", "s"), property("Name", "s"),
            property("Alias", "s", writable: true), property("Class", "u"), property("Appearance", "q"),
            property("Icon", "s"), property("Paired", "b"), property("Bonded", "b"),
            property("Trusted", "b", writable: true), property("Blocked", "b", writable: true),
            property("LegacyPairing", "b"), property("RSSI", "n"), property("Connected", "b"),
            property("UUIDs", "as"), property("Modalias", "s"), property("Adapter", "o"),
            property("ManufacturerData", "a{qv}"), property("ServiceData", "a{sv}"), property("TxPower", "n"),
            property("ServicesResolved", "b"), property("AdvertisingFlags", "ay"),
            property("AdvertisingData", "a{yv}"), property("WakeAllowed", "b", writable: true),
        ])

    static let gattService = InterfaceSchema(
        BusNames.gattService,
        properties: [property("UUID", "s"), property("Device", "o"), property("Primary", "b"), property("Includes", "ao")])

    static let gattCharacteristic = InterfaceSchema(
        BusNames.gattCharacteristic,
        methods: [
            method("ReadValue", [("options", "a{sv}")], [("value", "ay")]),
            method("WriteValue", [("value", "ay"), ("options", "a{sv}")]),
            method("StartNotify"), method("StopNotify"),
            method("AcquireNotify", [("options", "a{sv}")], [("fd", "h"), ("mtu", "q")]),
        ],
        properties: [
            property("UUID", "s"), property("Service", "o"), property("Value", "ay"), property("Notifying", "b"),
            property("Flags", "as"), property("MTU", "q"), property("NotifyAcquired", "b"),
        ])

    static let gattDescriptor = InterfaceSchema(
        BusNames.gattDescriptor,
        methods: [
            method("ReadValue", [("options", "a{sv}")], [("value", "ay")]),
            method("WriteValue", [("value", "ay"), ("options", "a{sv}")]),
        ],
        properties: [property("UUID", "s"), property("Characteristic", "o"), property("Value", "ay")])

    /// The simulator's controls on `/`: the Python fake's names and signatures where they
    /// overlap (Tests/Fixtures/dbusmock/README.md), so a test can run against either peer.
    static let mock = InterfaceSchema(
        BusNames.mock,
        methods: [
            method("AddAdapter", [("device_name", "s"), ("system_name", "s")], [("path", "s")]),
            method("RemoveAdapter", [("device_name", "s")]),
            method("AddDevice", [("adapter", "s"), ("address", "s"), ("alias", "s")], [("path", "s")]),
            method("AddFTMSMachine", [("adapter", "s"), ("address", "s"), ("name", "s"), ("kind", "s")], [("path", "s")]),
            method("AddMachineInRange", [("adapter", "s"), ("address", "s"), ("name", "s"), ("kind", "s")], [("path", "s")]),
            method("AddNameOnlyDevice", [("adapter", "s"), ("address", "s"), ("name", "s")], [("path", "s")]),
            method("VanishDevice", [("device", "s")]),
            method("ConnectDevice", [("adapter", "s"), ("address", "s")]),
            method("DisconnectDevice", [("adapter", "s"), ("address", "s")]),
            method("NotifyValue", [("char", "s"), ("hex", "s")]),
            method("NotifyValueUnchecked", [("char", "s"), ("hex", "s")]),
            method("NotifyValueTimed", [("char", "s"), ("hex", "s")], [("emitted_ns", "t")]),
            method("SetValue", [("char", "s"), ("hex", "s")]),
            method("GetWrites", [("char", "s")], [("writes", "aay")]),
            method("ClearWrites", [("char", "s")]),
            method("GetGattPaths", [("device", "s")], [("paths", "a{ss}")]),
            method("SetResistanceForm", [("device", "s"), ("form", "s")]),
            method("SetIndicationOrder", [("device", "s"), ("order", "s")]),
            method("SetWriteDelay", [("device", "s"), ("ms", "u")]),
            method("SetControlPointResult", [("device", "s"), ("op_code", "u"), ("result", "u")]),
            method("LoseControl", [("device", "s")]),
            method("SetConnectBehaviour", [("device", "s"), ("mode", "s"), ("connect_ms", "u"), ("resolve_ms", "u")]),
            method("ForgetGattCache", [("device", "s")]),
            method("DropServices", [("device", "s")]),
            method("SetDiscoveryFailures", [("adapter", "s"), ("count", "u")]),
            method("SetRSSI", [("device", "s"), ("rssi", "n")]),
            method("RestartBluetoothd", [("down_ms", "u")]),
            method("SetPowered", [("adapter", "s"), ("powered", "b")]),
            method("SetAsleep", [("device", "s"), ("asleep", "b")]),
            method("DropLinkAfter", [("device", "s"), ("frames", "u")]),
            method("SetStreamRate", [("device", "s"), ("hz", "d")]),
            method("SendBadlyTypedProperty", [("device", "s"), ("name", "s")]),
            method("GetCallLog", [], [("calls", "as")]),
            method("ClearCallLog"),
        ])
}

/// Interface and error names, spelled once.
enum BusNames {
    static let service = "org.bluez"
    static let root = "/org/bluez"
    static let properties = "org.freedesktop.DBus.Properties"
    static let introspectable = "org.freedesktop.DBus.Introspectable"
    static let objectManager = "org.freedesktop.DBus.ObjectManager"
    static let agentManager = "org.bluez.AgentManager1"
    static let profileManager = "org.bluez.ProfileManager1"
    static let adapter = "org.bluez.Adapter1"
    static let device = "org.bluez.Device1"
    static let gattService = "org.bluez.GattService1"
    static let gattCharacteristic = "org.bluez.GattCharacteristic1"
    static let gattDescriptor = "org.bluez.GattDescriptor1"
    static let mock = "org.bluez.Mock"

    /// Every schema by name, for routing and introspection.
    static let schemas: [String: InterfaceSchema] = Dictionary(uniqueKeysWithValues: [
        InterfaceSchema.properties, .introspectable, .objectManager, .agentManager, .profileManager, .adapter, .device,
        .gattService, .gattCharacteristic, .gattDescriptor, .mock,
    ].map { ($0.name, $0) })
}
