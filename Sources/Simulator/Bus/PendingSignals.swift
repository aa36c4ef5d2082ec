import DBus

/// The signals bluetoothd has queued but not yet sent, batched as gdbus batches them.
///
/// gdbus (`gdbus/object.c` 5.66) does not send a property change at once: it marks the object
/// pending and sends, from an idle callback, one InterfacesAdded for newly registered
/// interfaces (the parent's first, "as child objects may point to it"), then one
/// PropertiesChanged per interface with every property that changed meanwhile, then
/// InterfacesRemoved. Changes to an interface not yet announced are not sent at all (its
/// InterfacesAdded carries them). Before sending *any* message, a method reply included,
/// `g_dbus_send_message` flushes everything pending, which is why `Connected=true` reaches a
/// client before the reply to its Connect(). A characteristic's `Value` is flushed at once
/// (G_DBUS_PROPERTY_CHANGED_FLAG_FLUSH), so every notification is a signal of its own.
struct PendingSignals: Sendable {
    private struct Entry: Sendable {
        var added: [String] = []
        /// Interface → changed property names, in the order they first changed.
        var changed: [(interface: String, names: [String])] = []
        var invalidated: [String: [String]] = [:]

        var isEmpty: Bool { added.isEmpty && changed.isEmpty }
    }

    private var order: [String] = []
    private var entries: [String: Entry] = [:]

    var isEmpty: Bool { order.isEmpty }

    mutating func interfaceAdded(_ path: String, _ interface: String) {
        mark(path)
        entries[path, default: Entry()].added.append(interface)
    }

    mutating func propertyChanged(_ path: String, _ interface: String, _ name: String) {
        if entries[path]?.added.contains(interface) == true { return }
        mark(path)
        var entry = entries[path] ?? Entry()
        if let index = entry.changed.firstIndex(where: { $0.interface == interface }) {
            if !entry.changed[index].names.contains(name) { entry.changed[index].names.append(name) }
        } else {
            entry.changed.append((interface, [name]))
        }
        entry.invalidated[interface]?.removeAll { $0 == name }
        entries[path] = entry
    }

    mutating func propertyInvalidated(_ path: String, _ interface: String, _ name: String) {
        if entries[path]?.added.contains(interface) == true { return }
        mark(path)
        var entry = entries[path] ?? Entry()
        if let index = entry.changed.firstIndex(where: { $0.interface == interface }) {
            entry.changed[index].names.removeAll { $0 == name }
        } else {
            entry.changed.append((interface, []))
        }
        if entry.invalidated[interface]?.contains(name) != true { entry.invalidated[interface, default: []].append(name) }
        entries[path] = entry
    }

    /// The object is gone: what was queued for it is dropped (gdbus frees it with the object).
    mutating func forget(_ path: String) {
        entries[path] = nil
        order.removeAll { $0 == path }
    }

    /// Everything queued, in gdbus's order, read against the store's current values.
    mutating func drain(_ store: ObjectStore) -> [OutgoingSignal] {
        var signals: [OutgoingSignal] = []
        while let path = order.first {
            signals += drain(path: path, store)
        }
        return signals
    }

    /// Only `path`'s queued signals (a flushed `Value` change), parents first when announcing.
    mutating func drain(path: String, _ store: ObjectStore) -> [OutgoingSignal] {
        guard let entry = entries.removeValue(forKey: path) else { return [] }
        order.removeAll { $0 == path }
        var signals: [OutgoingSignal] = []
        if !entry.added.isEmpty {
            if let parent = Self.parent(of: path), entries[parent]?.added.isEmpty == false {
                signals += drain(path: parent, store)
            }
            let present = entry.added.filter { store.has(path, $0) }
            if !present.isEmpty { signals.append(.interfacesAdded(path, store.interfaceDictionary(path, only: present))) }
        }
        for (interface, names) in entry.changed where store.has(path, interface) {
            let invalidated = entry.invalidated[interface] ?? []
            let values = names.compactMap { name in store.value(path, interface, name).map { DBusDictEntry(.string(name), .variant($0)) } }
            // A name set then removed in the same batch goes out as invalidated.
            let vanished = names.filter { store.value(path, interface, $0) == nil && !invalidated.contains($0) }
            guard !values.isEmpty || !invalidated.isEmpty || !vanished.isEmpty else { continue }
            signals.append(.propertiesChanged(path, interface, changed: .dictionary(key: "s", value: "v", values), invalidated: invalidated + vanished))
        }
        return signals
    }

    private mutating func mark(_ path: String) {
        if entries[path] == nil { order.append(path) }
    }

    static func parent(of path: String) -> String? {
        guard path != "/", let slash = path.lastIndex(of: "/") else { return nil }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
