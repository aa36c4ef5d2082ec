import DBus

/// A simulated bluetoothd 5.66 with SolidFocus machines in range, owning `org.bluez` on a bus.
///
/// Method calls arrive on the DBus binding's bus thread and are handed, in wire order, through
/// one stream to this actor, which owns all state. Replies and signals leave through the
/// binding in the order the actor makes them, and property changes are batched and flushed as
/// gdbus does (``PendingSignals``), so clients see BlueZ's orderings: `Connected=true` before
/// the Connect reply, InterfacesAdded parent first, one PropertiesChanged per notification.
/// Delays (connect, resolve, discovery, the frame rate) are timers; nothing polls.
public actor BlueZSimulator {
    /// Why the simulator stopped.
    public enum Outcome: Sendable, Equatable {
        case stopped
        /// The bus went away (or refused the name back after a restart).
        case busLost(String)
        /// bluetoothd 5.66 would have crashed here (``Fault/notifyUseAfterFree``); why.
        case crashed(String)
    }

    enum Event: Sendable {
        case call(DBusMethodCall, generation: Int)
        case nameOwnerChanged(name: String, newOwner: String, generation: Int)
        case busLost(generation: Int)
    }

    public nonisolated let configuration: SimulatorConfiguration
    public nonisolated let busAddress: String
    /// The room shared with other buses' simulators, or nil for a room of its own (every
    /// adapter of this bluetoothd, no one else).
    public nonisolated let air: SharedAir?
    let log: EventLog
    /// The clock every stream's phase is counted from with ``SimulatorConfiguration/spreadPhases``.
    nonisolated let phaseEpoch = ContinuousClock.now

    var connection: DBusConnection?
    /// Bumped by every (re)attachment to the bus; events and timers of an older one are stale.
    var generation = 0
    var store = ObjectStore()
    var pending = PendingSignals()
    var adapters: [String: AdapterState] = [:]
    var devices: [String: DeviceState] = [:]
    var badTypes = false
    /// ``Fault/notifyUseAfterFree``: crash where 5.66 uses a freed notify session.
    var crashesOnHeldNotify = false
    /// How long after an acquired socket's close its hang-up is handled (``handleHangUps()``):
    /// zero without ``Fault/notifyUseAfterFree``.
    var hangUpDelay = Duration.zero
    /// Clients that left the bus; a call they sent before leaving must not open a session.
    var departed: Set<String> = []
    var agents: [String: String] = [:]
    var callLog: [String] = []

    private var events: AsyncStream<Event>.Continuation?
    private var consumer: Task<Void, Never>?
    private var timers: [UInt64: Timer] = [:]
    private var nextTimer: UInt64 = 0
    var nextWriteID: UInt64 = 0
    private(set) var outcome: Outcome?
    private var outcomeWaiters: [CheckedContinuation<Outcome, Never>] = []

    public init(configuration: SimulatorConfiguration, busAddress: String, air: SharedAir? = nil, log: EventLog = .silent) {
        self.configuration = configuration
        self.busAddress = busAddress
        self.air = air
        self.log = log
    }

    /// `DBUS_SYSTEM_BUS_ADDRESS` when set, else the system bus: where bluetoothd would be.
    public static func systemBusAddress(environment: [String: String]) -> String {
        DBusConnection.systemBusAddress(environment: environment)
    }

    // MARK: Life cycle

    /// Builds the object tree, connects, and returns once `org.bluez` is ours. The machines
    /// returned are what the ready line announces.
    @discardableResult
    public func start() async throws -> [MachineSpec] {
        guard events == nil else { return configuration.machines }
        for (index, name) in configuration.adapters.enumerated() {
            adapters["/org/bluez/" + name] = AdapterState(name: name, index: index)
        }
        for machine in configuration.machines {
            for spec in ([machine.adapter] + machine.alsoSeenBy).map(machine.seen(by:)) {
                guard adapters["/org/bluez/" + spec.adapter] != nil else {
                    throw SimulatorError("machine \(spec.name) is on adapter \(spec.adapter), which is not configured")
                }
                guard spec.address.isBluetoothAddress, devices[spec.devicePath] == nil else {
                    throw SimulatorError("machine \(spec.name) has a bad or duplicate address \(spec.address)")
                }
                devices[spec.devicePath] = DeviceState(spec: spec, timing: configuration.timing)
                air?.enter(spec)
            }
        }
        badTypes = configuration.faults.contains(.badTypes)
        buildTree()
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self)
        events = continuation
        consumer = Task { await self.consume(stream) }
        try await attach()
        applyStartFaults()
        log("ready on \(busAddress): \(configuration.adapters.count) adapter(s), \(configuration.machines.count) machine(s)")
        return configuration.machines
    }

    /// Releases the name and the bus; ``finished()`` then returns `.stopped`.
    public func stop() {
        finish(.stopped)
    }

    /// Suspends until the simulator stops or loses its bus.
    public func finished() async -> Outcome {
        if let outcome { return outcome }
        return await withCheckedContinuation { outcomeWaiters.append($0) }
    }

    func finish(_ result: Outcome) {
        guard outcome == nil else { return }
        outcome = result
        switch result {
        case .busLost(let reason): log("bus lost: \(reason)")
        case .crashed(let reason): log("bluetoothd crashed: \(reason)")
        case .stopped: break
        }
        generation += 1
        cancelAllTimers()
        for device in devices.values {
            // The bus went away with this gateway: its links are gone for the air too.
            leaveAir(device)
            device.streamTask?.cancel()
            for characteristic in device.characteristics.values { characteristic.acquired?.close() }
        }
        connection?.close()
        connection = nil
        events?.finish()
        for waiter in outcomeWaiters { waiter.resume(returning: result) }
        outcomeWaiters.removeAll()
    }

    /// Connects to the bus, serves every path, follows clients leaving, and takes the name.
    func attach() async throws {
        let connection = try await DBusConnection.connect(address: busAddress)
        let generation = generation
        self.connection = connection
        guard let events else { return }
        try connection.export(path: "/", subtree: true) { call in
            events.yield(.call(call, generation: generation))
        }
        let owners = try await connection.signals(matching: MatchRule(
            sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged"))
        Task {
            for await signal in owners {
                guard signal.arguments.count >= 3, let name = signal.arguments[0].string, let owner = signal.arguments[2].string else { continue }
                events.yield(.nameOwnerChanged(name: name, newOwner: owner, generation: generation))
            }
            events.yield(.busLost(generation: generation))
        }
        guard try await connection.requestName(BusNames.service) else {
            // The watcher above will report this connection's end: make that stale.
            self.generation += 1
            self.connection = nil
            connection.close()
            throw SimulatorError("\(BusNames.service) is already owned on \(busAddress): is bluetoothd or another simulator running?")
        }
    }

    private func consume(_ stream: AsyncStream<Event>) async {
        for await event in stream {
            switch event {
            case .call(let call, let generation):
                guard generation == self.generation else {
                    call.replier.fail(name: "org.freedesktop.DBus.Error.NoReply", message: "bluetoothd restarted")
                    continue
                }
                dispatch(call)
                handleHangUps()
            case .nameOwnerChanged(let name, let newOwner, let generation):
                guard generation == self.generation, name.hasPrefix(":"), newOwner.isEmpty else { continue }
                clientLeft(name)
                handleHangUps()
            case .busLost(let generation):
                guard generation == self.generation else { continue }
                finish(.busLost("the connection to \(busAddress) closed"))
            }
            flush()
        }
    }

    // MARK: Sending

    func emit(_ signal: OutgoingSignal) {
        try? connection?.emitSignal(path: signal.path, interface: signal.interface, member: signal.member, arguments: signal.arguments)
    }

    /// Sends everything gdbus would have queued: before any message, and after every event.
    func flush() {
        guard !pending.isEmpty else { return }
        for signal in pending.drain(store) { emit(signal) }
    }

    func reply(_ replier: DBusMethodReplier, _ values: [DBusValue] = []) {
        flush()
        replier.reply(values)
    }

    func fail(_ replier: DBusMethodReplier, _ failure: BusFailure) {
        flush()
        replier.fail(name: failure.name, message: failure.message)
    }

    // MARK: Objects and properties

    /// Registers an object; announced objects go out in the next flush, parents first.
    func addObject(_ path: String, _ interfaces: [(String, [String: DBusValue])], announce: Bool) {
        for name in [BusNames.introspectable, BusNames.properties] where !store.has(path, name) {
            store.add(path, name)
            if announce { pending.interfaceAdded(path, name) }
        }
        for (name, properties) in interfaces {
            store.add(path, name, properties)
            if announce { pending.interfaceAdded(path, name) }
        }
    }

    /// Unregisters an object; InterfacesRemoved goes out at once, after what was queued.
    func removeObject(_ path: String) {
        guard store.contains(path) else { return }
        flush()
        pending.forget(path)
        emit(.interfacesRemoved(path, store.remove(path)))
    }

    /// Changes a property (nil removes it) and queues the change, as `g_dbus_emit_property_changed`.
    func setProperty(_ path: String, _ interface: String, _ name: String, _ value: DBusValue?) {
        guard store.has(path, interface) else { return }
        let existed = store.set(path, interface, name, value)
        if value != nil {
            pending.propertyChanged(path, interface, name)
        } else if existed {
            pending.propertyInvalidated(path, interface, name)
        }
    }

    /// A `Value` change sent at once and on its own (G_DBUS_PROPERTY_CHANGED_FLAG_FLUSH).
    func setValueFlushed(_ path: String, _ interface: String, _ bytes: [UInt8]) {
        setProperty(path, interface, "Value", .bytes(bytes))
        for signal in pending.drain(path: path, store) { emit(signal) }
    }

    // MARK: Timers

    /// What a timer runs. Formed on the actor and run only there, so it may use the actor's
    /// own (non-Sendable) state.
    typealias Action = () -> Void

    private struct Timer {
        let owner: String?
        let task: Task<Void, Never>
        let action: Action
    }

    /// Runs `action` on the actor after `delay`, unless cancelled (by owner) or the bus was
    /// re-attached meanwhile. Zero runs it after the current event, as a GLib idle would.
    @discardableResult
    func after(_ delay: Duration, owner: String? = nil, _ action: @escaping Action) -> UInt64 {
        nextTimer += 1
        let id = nextTimer
        let generation = generation
        let task = Task { [weak self] in
            if delay > .zero { try? await Task.sleep(for: delay) }
            guard !Task.isCancelled else { return }
            await self?.fire(id, generation: generation)
        }
        timers[id] = Timer(owner: owner, task: task, action: action)
        return id
    }

    private func fire(_ id: UInt64, generation: Int) {
        guard let timer = timers.removeValue(forKey: id), generation == self.generation else { return }
        timer.action()
        flush()
    }

    func cancelTimers(owner: String) {
        for (id, timer) in timers where timer.owner == owner {
            timer.task.cancel()
            timers[id] = nil
        }
    }

    func cancelAllTimers() {
        for timer in timers.values { timer.task.cancel() }
        timers.removeAll()
    }

    // MARK: Lookup

    /// A device by object path or address, as the mock controls take it.
    func device(_ reference: String) throws(BusFailure) -> DeviceState {
        if let device = devices[reference] { return device }
        // A machine several adapters see: the copy that holds the link, else the first adapter's.
        let copies = devices.values.filter { $0.spec.address == reference.uppercased() }
        if let device = copies.min(by: { ($0.connected ? 0 : 1, $0.path) < ($1.connected ? 0 : 1, $1.path) }) { return device }
        throw .mock("NoSuchDevice", "no device \(reference)")
    }

    func adapter(named name: String) throws(BusFailure) -> AdapterState {
        guard let adapter = adapters["/org/bluez/" + name] else {
            throw BusFailure("org.bluez.Mock.NoSuchAdapter", "Adapter \(name) does not exist.")
        }
        return adapter
    }

    func devices(on adapter: AdapterState) -> [DeviceState] {
        devices.values.filter { $0.adapterPath == adapter.path }.sorted { $0.spec.address < $1.spec.address }
    }

    /// Whether another adapter's copy of `device` holds a link or is connecting: a peripheral
    /// takes one central, and stops advertising as connectable while it has one.
    func linkedElsewhere(_ device: DeviceState) -> Bool {
        devices.values.contains { $0 !== device && $0.spec.address == device.spec.address && ($0.connected || $0.pendingConnect != nil) }
    }

    /// This adapter on this bus, as the shared air tells centrals apart.
    func central(_ device: DeviceState) -> String {
        busAddress + " " + device.adapterPath
    }

    /// Whether the machine would take a link from this adapter: true without a shared air.
    func isOpenInAir(_ device: DeviceState) -> Bool {
        air?.isOpen(device.spec.address, to: central(device)) ?? true
    }

    /// The link is gone (or never came): the machine advertises to the others again.
    func leaveAir(_ device: DeviceState) {
        air?.release(device.spec.address, by: central(device))
    }

    /// The device owning a GATT object path.
    func owner(ofGatt path: String) -> DeviceState? {
        let parts = path.split(separator: "/")
        guard parts.count > 4 else { return nil }
        return devices["/" + parts.prefix(4).joined(separator: "/")]
    }
}
