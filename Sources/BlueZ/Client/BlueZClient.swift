package import DBus

/// One process's view of BlueZ: the object cache and the operations built on it.
///
/// An actor, because the cache is mutable state fed from the bus. Signals are applied in the
/// order they came off the wire, through one stream for all match rules.
package actor BlueZClient {
    package let connection: DBusConnection
    /// Every timeout and pause of the client and the links and supervisors built on it.
    /// Injected: the daemon passes one whose timers live on its SwiftNIO event loop, so that an
    /// idle gateway's own timers cost one `epoll_wait` each instead of libdispatch timer work
    /// (see the daemon's `EventLoopClock`); tests keep `ContinuousClock`.
    package nonisolated let clock: any Clock<Duration>
    package private(set) var tree = ObjectTree()
    /// Bumped every time the cache is rebuilt (start, bluetoothd restart), so waiters can tell
    /// a restart from an ordinary change.
    package private(set) var generation = 0
    private var pump: Task<Void, Never>?
    private var waiters: [UInt64: (check: @Sendable (ObjectTree) -> Bool, continuation: CheckedContinuation<Bool, Never>)] = [:]
    private var nextWaiter: UInt64 = 0
    private var listeners: [UInt64: (prefix: String, continuation: AsyncStream<DBusMessage>.Continuation)] = [:]
    private var nextListener: UInt64 = 0
    private var barriers: [UInt64: CheckedContinuation<Void, Never>] = [:]
    private var nextBarrier: UInt64 = 0
    /// How many callers want discovery on now: it starts with the first and stops with the
    /// last, so several machines being searched for share one session per adapter.
    var discoveryHolders = 0
    /// The adapters this client has a discovery session on, and those it is starting one on.
    package internal(set) var discoveringAdapters: Set<String> = []
    var startingAdapters: Set<String> = []
    /// The bus connection died (dbus-daemon restarted or went away): nothing more will come.
    package private(set) var busLost = false
    private var busLostWaiters: [CheckedContinuation<Void, Never>] = []

    package init(connection: DBusConnection, clock: any Clock<Duration> = ContinuousClock()) {
        self.connection = connection
        self.clock = clock
    }

    /// Registers the match rules, then loads `GetManagedObjects`, then follows the signals.
    /// BlueZ need not be running: the cache then stays empty until it appears.
    package func start() async throws {
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
            await self?.signalsEnded()
        }
    }

    package func stop() {
        pump?.cancel()
        pump = nil
        for barrier in barriers.values { barrier.resume() }
        barriers.removeAll()
    }

    /// Reloads the whole tree. A missing BlueZ leaves it empty rather than failing.
    package func reload() async throws {
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

    /// The bus is gone: nothing will come through the stream again, so no barrier may wait.
    private func signalsEnded() {
        for barrier in barriers.values { barrier.resume() }
        barriers.removeAll()
        guard pump != nil else { return }
        busLost = true
        for waiter in busLostWaiters { waiter.resume() }
        busLostWaiters.removeAll()
    }

    /// Returns when the bus connection is lost, which only a new connection (and a new
    /// client) can cure: the daemon waits on this to rebuild both. Cancellation returns too.
    package func waitUntilBusLost() async {
        if busLost { return }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if busLost || Task.isCancelled { continuation.resume() } else { busLostWaiters.append(continuation) }
            }
        } onCancel: {
            Task { await self.releaseBusLostWaiters() }
        }
    }

    private func releaseBusLostWaiters() {
        for waiter in busLostWaiters { waiter.resume() }
        busLostWaiters.removeAll()
    }

    /// Returns once the cache has applied every signal that arrived before now, in
    /// particular those BlueZ sent before a reply the caller has just received.
    package func sync() async {
        guard pump != nil, connection.isConnected else { return }
        nextBarrier += 1
        let id = nextBarrier
        await withCheckedContinuation { continuation in
            barriers[id] = continuation
            connection.sendBarrier(id)
        }
    }

    /// Reads `interface`'s properties of `path` with `Properties.GetAll` and puts them in the
    /// cache, for when a reply has told us more than the signals have: real bluetoothd 5.66
    /// can answer `Device1.Connect` with success and never signal `Connected=true` (the device
    /// was already connected at the HCI level), leaving the cache saying false for good.
    ///
    /// The reply is applied after ``sync()``: every signal sent before it (older state) has
    /// been applied by then, so none overwrites it. A signal arriving in the moment between the
    /// reply and the barrier is newer and is overwritten; the connect sequence's waits have
    /// timeouts that end in another read, so that window costs time, never a wrong verdict.
    /// Returns false when the object is gone or BlueZ did not answer.
    @discardableResult
    package func refresh(_ path: String, interface: String) async -> Bool {
        let reply: [DBusValue]
        do {
            reply = try await connection.call(
                destination: BlueZNames.service, path: path, interface: BlueZNames.properties,
                member: "GetAll", arguments: [.string(interface)], timeout: .seconds(5))
        } catch {
            return false
        }
        await sync()
        guard let properties = reply.first, tree.refresh(path, interface: interface, getAll: properties) else { return false }
        resumeWaiters()
        return true
    }

    private func handle(_ signal: DBusMessage) async {
        if signal.interface == DBusConnection.barrierInterface, signal.member == "Barrier" {
            if case .uint64(let id)? = signal.arguments.first { barriers.removeValue(forKey: id)?.resume() }
            return
        }
        if signal.member == "NameOwnerChanged" {
            // bluetoothd restarted or went away: every object is gone, and a new owner
            // starts from its own state (docs/bluez.md "Failure modes"), holding no
            // discovery session of ours.
            tree.removeAll()
            discoveringAdapters.removeAll()
            if let newOwner = signal.arguments.count >= 3 ? signal.arguments[2].string : nil, !newOwner.isEmpty {
                try? await reload()
            } else {
                generation += 1
            }
        } else {
            tree.apply(signal)
            if let path = signal.path {
                for listener in listeners.values where path == listener.prefix || path.hasPrefix(listener.prefix + "/") {
                    listener.continuation.yield(signal)
                }
            }
        }
        resumeWaiters()
    }

    /// Every PropertiesChanged and ObjectManager signal for `path` and below, after the cache
    /// has applied it. Each GATT notification is its own signal, identical values included.
    package func signals(under path: String) -> AsyncStream<DBusMessage> {
        let (stream, continuation) = AsyncStream.makeStream(of: DBusMessage.self)
        nextListener += 1
        let id = nextListener
        listeners[id] = (path, continuation)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeListener(id) }
        }
        return stream
    }

    private func removeListener(_ id: UInt64) {
        listeners[id] = nil
    }

    /// Suspends until `condition` holds for the tree (checked now and on every change).
    package func wait(until condition: @escaping @Sendable (ObjectTree) -> Bool) async {
        _ = await wait(until: condition, timeout: nil)
    }

    /// As ``wait(until:)``, giving up after `timeout`; returns whether the condition held.
    package func wait(until condition: @escaping @Sendable (ObjectTree) -> Bool, timeout: Duration?) async -> Bool {
        if condition(tree) { return true }
        nextWaiter += 1
        let id = nextWaiter
        let timer = timeout.map { timeout in
            Task { [weak self, clock] in
                try? await clock.sleep(for: timeout)
                await self?.expireWaiter(id)
            }
        }
        defer { timer?.cancel() }
        // Cancellation gives up the wait, so a supervisor being stopped never hangs here.
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled {
                    continuation.resume(returning: false)
                } else {
                    waiters[id] = (condition, continuation)
                }
            }
        } onCancel: {
            Task { await self.expireWaiter(id) }
        }
    }

    private func expireWaiter(_ id: UInt64) {
        waiters.removeValue(forKey: id)?.continuation.resume(returning: false)
    }

    private func resumeWaiters() {
        for (id, waiter) in waiters where waiter.check(tree) {
            waiters[id] = nil
            waiter.continuation.resume(returning: true)
        }
    }

    /// Waiters and listeners alive: a soak test watches these for leaks.
    package var pendingWaits: Int { waiters.count + listeners.count }

    // MARK: Views

    package var adapters: [String] { tree.paths(with: BlueZNames.adapter) }

    /// Adapter path → upper-case addresses of the devices connected through it, whoever
    /// connected them (the link budget counts them all).
    package var links: [String: Set<String>] {
        var links: [String: Set<String>] = [:]
        for path in tree.paths(with: BlueZNames.device) {
            guard let properties = tree.properties(path, BlueZNames.device), properties["Connected"]?.bool == true,
                let machine = DiscoveredMachine(path: path, properties: properties)
            else { continue }
            links[machine.adapter, default: []].insert(machine.address.uppercased())
        }
        return links
    }

    /// Devices that pass `filter`, sorted by name.
    package func machines(passing filter: MachineFilter) -> [DiscoveredMachine] {
        tree.machines(passing: filter)
    }
}
