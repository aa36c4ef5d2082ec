import DBus

/// A signal ready to go on the bus.
struct OutgoingSignal: Sendable, Equatable {
    let path: String
    let interface: String
    let member: String
    let arguments: [DBusValue]

    static func interfacesAdded(_ path: String, _ interfaces: DBusValue) -> OutgoingSignal {
        OutgoingSignal(path: "/", interface: BusNames.objectManager, member: "InterfacesAdded",
                       arguments: [.objectPath(path), interfaces])
    }

    static func interfacesRemoved(_ path: String, _ interfaces: [String]) -> OutgoingSignal {
        OutgoingSignal(path: "/", interface: BusNames.objectManager, member: "InterfacesRemoved",
                       arguments: [.objectPath(path), .array(element: "s", interfaces.map(DBusValue.string))])
    }

    static func propertiesChanged(_ path: String, _ interface: String, changed: DBusValue, invalidated: [String]) -> OutgoingSignal {
        OutgoingSignal(path: path, interface: BusNames.properties, member: "PropertiesChanged",
                       arguments: [.string(interface), changed, .array(element: "s", invalidated.map(DBusValue.string))])
    }
}
