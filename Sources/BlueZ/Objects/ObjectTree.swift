package import DBus

/// BlueZ's object tree as last reported: path → interface → property → value.
///
/// A value type fed by `GetManagedObjects` and the ObjectManager and Properties signals, so
/// the whole of BlueZ's state can be tested without a bus. Badly typed or malformed signals
/// change nothing (docs/bluez.md "Failure modes").
package struct ObjectTree: Sendable, Equatable {
    package typealias Properties = [String: DBusValue]
    package private(set) var objects: [String: [String: Properties]] = [:]

    package init() {}

    /// What a signal did to the tree.
    package enum Change: Sendable, Equatable {
        case added(path: String, interfaces: [String])
        case removed(path: String, interfaces: [String])
        case changed(path: String, interface: String, properties: [String], invalidated: [String])
    }

    /// Replaces everything with a `GetManagedObjects` reply (`a{oa{sa{sv}}}`).
    package mutating func load(managedObjects reply: DBusValue) {
        objects = [:]
        guard case .dictionary(_, _, let entries) = reply else { return }
        for entry in entries {
            guard let path = entry.key.string, let interfaces = Self.interfaces(entry.value) else { continue }
            objects[path] = interfaces
        }
    }

    /// Applies one ObjectManager or Properties signal; `nil` when it was not one or was malformed.
    @discardableResult
    package mutating func apply(_ signal: DBusMessage) -> Change? {
        switch (signal.interface, signal.member) {
        case (BlueZNames.objectManager, "InterfacesAdded"):
            guard signal.arguments.count >= 2, let path = signal.arguments[0].string,
                let interfaces = Self.interfaces(signal.arguments[1])
            else { return nil }
            objects[path, default: [:]].merge(interfaces) { _, new in new }
            return .added(path: path, interfaces: interfaces.keys.sorted())
        case (BlueZNames.objectManager, "InterfacesRemoved"):
            guard signal.arguments.count >= 2, let path = signal.arguments[0].string,
                let names = signal.arguments[1].strings
            else { return nil }
            for name in names { objects[path]?[name] = nil }
            if objects[path]?.isEmpty == true { objects[path] = nil }
            return .removed(path: path, interfaces: names)
        case (BlueZNames.properties, "PropertiesChanged"):
            guard signal.arguments.count >= 2, let path = signal.path, let interface = signal.arguments[0].string,
                let changed = signal.arguments[1].stringDictionary
            else { return nil }
            let invalidated = signal.arguments.count >= 3 ? signal.arguments[2].strings ?? [] : []
            // A change for an object we have not seen is dropped: its InterfacesAdded (or the
            // next GetManagedObjects) brings the full state.
            guard objects[path]?[interface] != nil else { return nil }
            for (name, value) in changed { objects[path]?[interface]?[name] = value.unwrapped }
            for name in invalidated { objects[path]?[interface]?[name] = nil }
            return .changed(path: path, interface: interface, properties: changed.keys.sorted(), invalidated: invalidated)
        default:
            return nil
        }
    }

    package mutating func removeAll() {
        objects = [:]
    }

    /// Overwrites an object's properties with a `Properties.GetAll` reply (`a{sv}`) for an
    /// interface the tree already holds; `false` when it holds no such object or the reply is
    /// malformed. Only for a fresher read: see ``BlueZClient/refresh(_:interface:)``.
    @discardableResult
    package mutating func refresh(_ path: String, interface: String, getAll reply: DBusValue) -> Bool {
        guard objects[path]?[interface] != nil, let properties = reply.stringDictionary else { return false }
        for (name, value) in properties { objects[path]?[interface]?[name] = value.unwrapped }
        return true
    }

    package func properties(_ path: String, _ interface: String) -> Properties? {
        objects[path]?[interface]
    }

    /// Paths carrying `interface`, sorted.
    package func paths(with interface: String) -> [String] {
        objects.compactMap { $0.value[interface] == nil ? nil : $0.key }.sorted()
    }

    /// `a{sa{sv}}` → interface → properties, with variants unwrapped.
    static func interfaces(_ value: DBusValue) -> [String: Properties]? {
        guard let byInterface = value.stringDictionary else { return nil }
        var result: [String: Properties] = [:]
        for (interface, properties) in byInterface {
            guard let properties = properties.stringDictionary else { return nil }
            result[interface] = properties.mapValues(\.unwrapped)
        }
        return result
    }
}

extension ObjectTree {
    /// Devices that pass `filter`, sorted by name, then address.
    package func machines(passing filter: MachineFilter) -> [DiscoveredMachine] {
        var gattServices: [String: [String]] = [:]
        for path in paths(with: BlueZNames.gattService) {
            guard let service = properties(path, BlueZNames.gattService), let device = service["Device"]?.string,
                let uuid = service["UUID"]?.string
            else { continue }
            gattServices[device, default: []].append(uuid)
        }
        return paths(with: BlueZNames.device).compactMap { path -> DiscoveredMachine? in
            guard let properties = properties(path, BlueZNames.device),
                let machine = DiscoveredMachine(path: path, properties: properties),
                filter.allows(adapter: machine.adapter),
                filter.accepts(
                    name: properties["Name"]?.string, address: machine.address, uuids: DiscoveredMachine.uuids(properties),
                    gattServices: (gattServices[path] ?? []) + Self.cachedServices(properties) + Self.serviceDataUUIDs(properties))
            else { return nil }
            return machine
        }.sorted { ($0.name, $0.address) < ($1.name, $1.address) }
    }

    /// A device's UUIDs when they are its GATT database's rather than what it advertises: once
    /// bluetoothd has resolved a device's services it lists them as its UUIDs and keeps them in
    /// its cache, and after a restart (or a reboot) it reloads a device it connected to with
    /// those UUIDs and no GattService1 objects; what it then hears advertised changes only RSSI
    /// and ManufacturerData, so 0xFE01 never shows again (seen in the VM: such machines were
    /// never found). Every GATT server has GAP (0x1800), and no advertisement names it.
    static func cachedServices(_ properties: Properties) -> [String] {
        let uuids = DiscoveredMachine.uuids(properties)
        return uuids.contains { $0.lowercased() == Self.genericAccessUUID } ? uuids : []
    }

    static let genericAccessUUID = "00001800-0000-1000-8000-00805f9b34fb"

    /// The services a device's latest advertisement carries data for (`ServiceData`'s keys). An
    /// FTMS server advertises Fitness Machine service data (FTMS 1.0 §3.1.1), and bluetoothd 5.66
    /// refreshes `ServiceData` from every advertisement, even a resolved device's. It is the one
    /// sign left when the GATT cache has lost the service: a machine that tore its server down
    /// before its link went (bluetoothd followed the Service Changed indications and dropped the
    /// services) is otherwise never taken on that adapter again (seen in the VM).
    static func serviceDataUUIDs(_ properties: Properties) -> [String] {
        properties["ServiceData"]?.stringDictionary.map { Array($0.keys) } ?? []
    }

    /// Whether `adapter` can be used: not known to be powered off.
    package func isPowered(_ adapter: String) -> Bool {
        properties(adapter, BlueZNames.adapter)?["Powered"]?.bool != false
    }

    /// The Device1 objects that are `target` and that a powered adapter allowed by `filter` can
    /// reach: after a bluetoothd restart a remembered machine is listed on every adapter before
    /// they are powered again, and a Connect through an unpowered one fails at once.
    ///
    /// A target with an address is a machine taken before, so every copy with that address
    /// counts, whatever BlueZ lists as its UUIDs now: a resolution that failed half-way leaves
    /// them short, and a machine whose only other copy is on a full adapter would otherwise
    /// wait for room there while the adapter it used stands empty (the VM: 2 minutes).
    package func reachable(_ target: MachineTarget, passing filter: MachineFilter) -> [DiscoveredMachine] {
        let copies = target.address == nil ? machines(passing: filter) : paths(with: BlueZNames.device).compactMap { path in
            properties(path, BlueZNames.device).flatMap { DiscoveredMachine(path: path, properties: $0) }
        }
        return copies.filter { target.matches($0) && filter.allows(adapter: $0.adapter) && isPowered($0.adapter) }
    }
}
