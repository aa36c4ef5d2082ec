import DBus

/// Every object the simulated bluetoothd has registered: path → interface → property → value.
///
/// A property that is absent is one whose gdbus `exists()` callback says no (a `Value` not yet
/// cached, an RSSI outside discovery); it is left out of GetAll, GetManagedObjects and
/// InterfacesAdded, as BlueZ leaves it out.
struct ObjectStore: Sendable {
    struct Object: Sendable {
        /// In registration order, which is the order gdbus lists them.
        var interfaceOrder: [String] = []
        var properties: [String: [String: DBusValue]] = [:]
    }

    private(set) var objects: [String: Object] = [:]

    func contains(_ path: String) -> Bool { objects[path] != nil }

    func has(_ path: String, _ interface: String) -> Bool { objects[path]?.properties[interface] != nil }

    func interfaces(of path: String) -> [String] { objects[path]?.interfaceOrder ?? [] }

    mutating func add(_ path: String, _ interface: String, _ properties: [String: DBusValue] = [:]) {
        var object = objects[path] ?? Object()
        if object.properties[interface] == nil { object.interfaceOrder.append(interface) }
        object.properties[interface] = properties
        objects[path] = object
    }

    /// Removes the whole object; returns the interfaces it had.
    @discardableResult
    mutating func remove(_ path: String) -> [String] {
        objects.removeValue(forKey: path)?.interfaceOrder ?? []
    }

    mutating func removeAll() { objects = [:] }

    func value(_ path: String, _ interface: String, _ name: String) -> DBusValue? {
        objects[path]?.properties[interface]?[name]
    }

    /// Sets (or, with `nil`, removes) one property; returns whether it existed before.
    @discardableResult
    mutating func set(_ path: String, _ interface: String, _ name: String, _ value: DBusValue?) -> Bool {
        guard objects[path]?.properties[interface] != nil else { return false }
        let existed = objects[path]?.properties[interface]?[name] != nil
        objects[path]?.properties[interface]?[name] = value
        return existed
    }

    /// `a{sv}` of an interface's present properties, in BlueZ's table order.
    func propertyDictionary(_ path: String, _ interface: String) -> DBusValue {
        let values = objects[path]?.properties[interface] ?? [:]
        let schema = BusNames.schemas[interface]
        let names = values.keys.sorted { lhs, rhs in
            let left = schema?.propertyRank(lhs) ?? 0
            let right = schema?.propertyRank(rhs) ?? 0
            return left == right ? lhs < rhs : left < right
        }
        return .dictionary(key: "s", value: "v", names.compactMap { name in
            values[name].map { DBusDictEntry(.string(name), .variant($0)) }
        })
    }

    /// `a{sa{sv}}` of an object, as GetManagedObjects and InterfacesAdded carry it.
    func interfaceDictionary(_ path: String, only: [String]? = nil) -> DBusValue {
        let names = only ?? interfaces(of: path)
        return .dictionary(key: "s", value: "a{sv}", names.map { DBusDictEntry(.string($0), propertyDictionary(path, $0)) })
    }

    /// `GetManagedObjects` on `/`: every object below the root, sorted by path so that a
    /// parent always precedes its children.
    func managedObjects() -> DBusValue {
        .dictionary(key: "o", value: "a{sa{sv}}", objects.keys.filter { $0 != "/" }.sorted().map { path in
            DBusDictEntry(.objectPath(path), interfaceDictionary(path))
        })
    }

    /// Whether libdbus would find a node for `path`: a registered object or a path component
    /// on the way to one (`/org` before `/org/bluez`).
    func hasNode(_ path: String) -> Bool {
        if objects[path] != nil { return true }
        let prefix = path == "/" ? "/" : path + "/"
        return objects.keys.contains { $0.hasPrefix(prefix) }
    }

    /// The next path component of every object below `path`, for introspection's `<node>` list.
    func childNames(of path: String) -> [String] {
        let prefix = path == "/" ? "/" : path + "/"
        var names = Set<String>()
        for key in objects.keys where key.hasPrefix(prefix) && key != path {
            if let first = key.dropFirst(prefix.count).split(separator: "/").first { names.insert(String(first)) }
        }
        return names.sorted()
    }
}
