public import DBus

/// One process's view of BlueZ: the object cache and the operations built on it.
///
/// An actor, because the cache is mutable state fed from the bus. Signals are applied in the
/// order they came off the wire, through one stream for all match rules.
public actor BlueZClient {
    public let connection: DBusConnection
    public private(set) var tree = ObjectTree()
    /// Bumped every time the cache is rebuilt (start, bluetoothd restart), so waiters can tell
    /// a restart from an ordinary change.
    public private(set) var generation = 0
    private var pump: Task<Void, Never>?
    private var waiters: [(check: @Sendable (ObjectTree) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []

    public init(connection: DBusConnection) {
        self.connection = connection
    }

    /// Registers the match rules, then loads `GetManagedObjects`, then follows the signals.
    /// BlueZ need not be running: the cache then stays empty until it appears.
    public func start() async throws {
        let stream = try await connection.signals(matchingAny: [
            MatchRule(sender: BlueZNames.service, interface: BlueZNames.objectManager, member: "InterfacesAdded"),
            MatchRule(sender: BlueZNames.service, interface: BlueZNames.objectManager, member: "InterfacesRemoved"),
            MatchRule(sender: BlueZNames.service, interface: BlueZNames.properties, member: "PropertiesChanged", pathNamespace: "/org/bluez"),
            MatchRule(sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged", arg0: BlueZNames.service),
        ])
        try await reload()
        pump = Task { [weak self] in
            for await signal in stream {
                await self?.handle(signal)
            }
        }
    }

    public func stop() {
        pump?.cancel()
        pump = nil
    }

    /// Reloads the whole tree. A missing BlueZ leaves it empty rather than failing.
    public func reload() async throws {
        do {
            let reply = try await connection.call(
                destination: BlueZNames.service, path: "/", interface: BlueZNames.objectManager,
                member: "GetManagedObjects", timeout: .seconds(10))
            tree.load(managedObjects: reply.first ?? .array(element: "s", []))
        } catch DBusError.remote(name: "org.freedesktop.DBus.Error.ServiceUnknown", _),
            DBusError.remote(name: "org.freedesktop.DBus.Error.NameHasNoOwner", _)
        {
            tree.removeAll()
        }
        generation += 1
        resumeWaiters()
    }

    private func handle(_ signal: DBusMessage) async {
        if signal.member == "NameOwnerChanged" {
            // bluetoothd restarted or went away: every object is gone, and a new owner
            // starts from its own state (notes §7).
            tree.removeAll()
            if let newOwner = signal.arguments.count >= 3 ? signal.arguments[2].string : nil, !newOwner.isEmpty {
                try? await reload()
            } else {
                generation += 1
            }
        } else {
            tree.apply(signal)
        }
        resumeWaiters()
    }

    /// Suspends until `condition` holds for the tree (checked now and on every change).
    public func wait(until condition: @escaping @Sendable (ObjectTree) -> Bool) async {
        if condition(tree) { return }
        await withCheckedContinuation { continuation in
            waiters.append((condition, continuation))
        }
    }

    private func resumeWaiters() {
        var remaining: [(check: @Sendable (ObjectTree) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
        for waiter in waiters {
            if waiter.check(tree) { waiter.continuation.resume() } else { remaining.append(waiter) }
        }
        waiters = remaining
    }

    // MARK: Views

    public var adapters: [String] { tree.paths(with: BlueZNames.adapter) }

    /// Devices that pass `filter`, sorted by name.
    public func machines(passing filter: MachineFilter) -> [DiscoveredMachine] {
        tree.paths(with: BlueZNames.device).compactMap { path -> DiscoveredMachine? in
            guard let properties = tree.properties(path, BlueZNames.device),
                let machine = DiscoveredMachine(path: path, properties: properties),
                filter.accepts(name: properties["Name"]?.string, address: machine.address, uuids: DiscoveredMachine.uuids(properties))
            else { return nil }
            return machine
        }.sorted { ($0.name, $0.address) < ($1.name, $1.address) }
    }
}
