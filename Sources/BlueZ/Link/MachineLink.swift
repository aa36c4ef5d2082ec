import DBus
package import FTMS
import Synchronization

/// One machine's connection: the contract §2 connect sequence, its notifications, and its
/// Control Point with one procedure in flight (contract §4).
package actor MachineLink {
    package let client: BlueZClient
    package let device: String
    package private(set) var info: MachineInfo?
    private var gatt = GattMap(tree: ObjectTree(), device: "/")
    private var pendingResponse: (id: UInt64, request: UInt8, continuation: CheckedContinuation<ControlPointResponse, any Error>)?
    /// One procedure at a time (contract §4), and a command's fallbacks and re-requests hold it
    /// throughout, so no other write lands between them.
    private var gateHeld = false
    private var gateQueue: [CheckedContinuation<Void, Never>] = []
    /// Whether our Request Control stands: false until granted, and again after Status 0xFF
    /// or a 0x05 answer.
    var controlGranted: Bool {
        get { granted.load(ordering: .acquiring) }
        set { granted.store(newValue, ordering: .releasing) }
    }
    /// Atomic because a Status 0xFF (control lost) is seen on the thread that read it (see
    /// ``NotificationSink``), not on this actor, and must count before its notification
    /// reaches anyone, who may send the next command at once.
    private nonisolated let granted = Atomic<Bool>(false)
    private var closed = false
    /// Learned resistance forms, shared with every link to the same model.
    package let resistanceForms: ResistanceFormMemory
    private var nextProcedure: UInt64 = 0
    /// Where notifications go: the caller's sink, or the stream ``notifications()`` hands out.
    private let sink: NotificationSink
    private var stream: AsyncStream<(Characteristic, [UInt8])>?
    private let streamEnd: AsyncStream<(Characteristic, [UInt8])>.Continuation?
    /// Whether to try AcquireNotify for notify characteristics before StartNotify.
    private let acquire: Bool
    /// The bus-thread taps and acquired sockets feeding ``sink``, ended by ``close()``.
    private var taps: [SignalTap] = []
    private var sockets: [DatagramSubscription] = []
    /// Every characteristic this link sent AcquireNotify for and whose release bluetoothd has
    /// not yet been seen to handle: the link may not disconnect, nor the process leave the
    /// bus, until each is (``releaseAcquired()``).
    private var acquiredPaths: Set<String> = []
    /// AcquireNotify calls on their way: bluetoothd may hand out a socket for each, so the
    /// release waits for their replies.
    private var acquiring = 0
    private var acquiringWaiters: [CheckedContinuation<Void, Never>] = []

    /// Receives each data or status notification on the thread that read it: a StartNotify
    /// signal on the bus thread (its ``SignalTap``), an acquired socket's datagram wherever the
    /// connection reads datagrams (its `DatagramReader`, in the daemon the event loop that also
    /// runs the fleet; without one, the bus thread). It must be quick and must not block;
    /// yielding into a stream is.
    package typealias NotificationSink = @Sendable (Characteristic, [UInt8]) -> Void

    /// `sink` receives the notifications straight from the thread that read them (the
    /// supervisor passes one, saving a task per machine); without one they are buffered for
    /// ``notifications()``. `acquire: false` keeps every characteristic on StartNotify.
    package init(
        client: BlueZClient, device: String, resistanceForms: ResistanceFormMemory = ResistanceFormMemory(),
        acquire: Bool = true, sink: NotificationSink? = nil
    ) {
        self.client = client
        self.device = device
        self.resistanceForms = resistanceForms
        self.acquire = acquire
        if let sink {
            self.sink = sink
            streamEnd = nil
        } else {
            let (stream, continuation) = AsyncStream.makeStream(of: (Characteristic, [UInt8]).self)
            self.stream = stream
            streamEnd = continuation
            self.sink = { continuation.yield(($0, $1)) }
        }
    }

    private var connection: DBusConnection { client.connection }

    /// Connect, then wait for ServicesResolved (raced against Connected=false and removal),
    /// then Device Information, Feature, subscriptions, indications, Request Control: the
    /// order of contract §2.
    package func connect(timeout: Duration = .seconds(20), resolveTimeout: Duration = .seconds(20)) async throws -> MachineInfo {
        let device = device
        do {
            _ = try await connection.call(
                destination: BlueZNames.service, path: device, interface: BlueZNames.device, member: "Connect", timeout: timeout, cancellable: true)
        } catch let error as DBusError {
            throw LinkError.connectFailed(error.description)
        }
        // A successful reply means connected. Whether BlueZ signalled Connected=true before
        // it (as simulators do) or never did (real bluetoothd 5.66 when the link already
        // existed at the HCI level), the cache must show the link before anything judges it:
        // apply what was sent before the reply, then read the properties if it still disagrees.
        await client.sync()
        if await client.tree.properties(device, BlueZNames.device)?["Connected"]?.bool != true {
            await client.refresh(device, interface: BlueZNames.device)
        }
        var resolved = await waitForResolution(timeout: resolveTimeout)
        if !resolved {
            // Signals can be lost to the refresh's window (see BlueZClient.refresh): one last read.
            await client.refresh(device, interface: BlueZNames.device)
            resolved = await waitForResolution(timeout: .zero)
        }
        let tree = await client.tree
        guard let properties = tree.properties(device, BlueZNames.device), properties["Connected"]?.bool == true else {
            throw LinkError.disconnected
        }
        guard resolved, properties["ServicesResolved"]?.bool == true else { throw LinkError.servicesNeverResolved }

        gatt = GattMap(tree: tree, device: device)
        let name = properties["Name"]?.string ?? properties["Alias"]?.string ?? ""
        // The name says bike or rower; a generic FTMS machine's data characteristic says it.
        let type = MachineType(machineName: name) ?? MachineType.allCases.first { gatt[$0.dataCharacteristic] != nil } ?? .bike
        guard let data = gatt[type.dataCharacteristic] else {
            throw LinkError.missingCharacteristic(type == .rower ? "Rower Data (0x2AD1)" : "Indoor Bike Data (0x2AD2)")
        }
        guard let controlPoint = gatt[.fitnessMachineControlPoint] else {
            throw LinkError.missingCharacteristic("Control Point (0x2AD9)")
        }
        var info = MachineInfo(
            path: device, name: name, address: properties["Address"]?.string ?? "", type: type)
        if let path = gatt[AssignedNumbers.manufacturerNameString] { info.manufacturer = try? await readText(path) }
        if let path = gatt[AssignedNumbers.modelNumberString] { info.model = try? await readText(path) }
        if let path = gatt[.fitnessMachineFeature] {
            let bytes = try await read(path)
            info.featureBytes = bytes
            info.features = bytes.withUnsafeBytes { FitnessMachineFeature(decoding: $0) }
        }
        if let path = gatt[.supportedResistanceLevelRange] {
            info.resistanceRange = try? await read(path).withUnsafeBytes { SupportedRange(kind: .resistanceLevel, decoding: $0) }
        }
        info.notifyPaths[type.dataCharacteristic] = try await subscribe(type.dataCharacteristic, data)
        if let status = gatt[.fitnessMachineStatus] { info.notifyPaths[.fitnessMachineStatus] = try await subscribe(.fitnessMachineStatus, status) }
        // The Control Point stays on StartNotify: it indicates, and BlueZ 5.66 refuses to
        // AcquireNotify an indicate-only characteristic.
        taps.append(tapValues(of: controlPoint) { [weak self] value in
            Task { await self?.controlPointIndication(value) }
        })
        try await startNotify(controlPoint)
        self.info = info
        await acquireGate()
        defer { releaseGate() }
        var written: [[UInt8]] = []
        try await requestControl(written: &written)
        return info
    }

    /// Waits for ServicesResolved, raced against Connected=false and removal; true when resolved.
    private func waitForResolution(timeout: Duration) async -> Bool {
        let device = device
        _ = await client.wait(until: { tree in
            let properties = tree.properties(device, BlueZNames.device)
            return properties == nil || properties?["Connected"]?.bool == false || properties?["ServicesResolved"]?.bool == true
        }, timeout: timeout)
        return await client.tree.properties(device, BlueZNames.device)?["ServicesResolved"]?.bool == true
    }

    /// Every notification of the machine's data and status characteristics since the
    /// connect sequence subscribed, as (characteristic, bytes), in the order BlueZ sent them.
    /// One consumer: the stream is handed out once per link. Empty for a link made with a sink.
    package func notifications() -> AsyncStream<(Characteristic, [UInt8])> {
        defer { stream = nil }
        return stream ?? AsyncStream { $0.finish() }
    }

    /// Subscribes to one notify characteristic: AcquireNotify where BlueZ allows it, else
    /// StartNotify (docs/bluez.md "Reading, writing, notifications": NotSupported on indicate-only, NotPermitted when already
    /// acquired, InProgress when any client has a StartNotify session). The tap for the
    /// StartNotify path is in place first, so no signal between the reply and now is lost.
    private func subscribe(_ characteristic: Characteristic, _ path: String) async throws -> NotifyPath {
        let sink = sink
        let isStatus = characteristic == .fitnessMachineStatus
        taps.append(tapValues(of: path) { [weak self] value in
            if isStatus { self?.statusArrived(value) }
            sink(characteristic, value)
        })
        return try await acquireOrStart(characteristic, path)
    }

    /// AcquireNotify, or StartNotify where it is not wanted or refused.
    private func acquireOrStart(_ characteristic: Characteristic, _ path: String) async throws -> NotifyPath {
        let sink = sink
        let isStatus = characteristic == .fitnessMachineStatus
        guard acquire, gatt.flags[path]?.contains("notify") == true else {
            try await startNotify(path)
            return .startNotify(reason: nil)
        }
        // Counted from before the call: bluetoothd takes the notify session as it takes the
        // call, before its reply, and a client leaving in between is 5.66's crash too. An
        // error answer means it took nothing of ours (unless an older socket of ours on this
        // characteristic is still unreleased: that one is still waited for).
        let olderUnreleased = acquiredPaths.contains(path)
        acquiredPaths.insert(path)
        acquiring += 1
        defer { acquireEnded() }
        do {
            let reply: [DBusValue]
            do {
                reply = try await connection.call(
                    destination: BlueZNames.service, path: path, interface: BlueZNames.gattCharacteristic,
                    member: "AcquireNotify", arguments: [.properties([:])], timeout: .seconds(5))
            } catch DBusError.remote(let name, let message) {
                if !olderUnreleased { acquiredPaths.remove(path) }
                throw DBusError.remote(name: name, message: message)
            }
            guard let descriptor = reply.first?.fileDescriptor else {
                try await startNotify(path)
                return .startNotify(reason: "AcquireNotify returned no descriptor")
            }
            let mtu = reply.count >= 2 ? reply[1].integer ?? 23 : 23
            let subscription = connection.readDatagrams(
                from: descriptor, maximumSize: max(mtu, 23),
                onDatagram: { [weak self] value in
                    if isStatus { self?.statusArrived(value) }
                    sink(characteristic, value)
                },
                onEnd: { [weak self] reason in
                    Task { await self?.notifySocketEnded(characteristic, path, reason: reason) }
                })
            // Closed while AcquireNotify was on its way (a re-subscription after BlueZ let the
            // socket go, or a stop during the connect sequence): the release that close()
            // started waits for this reply (``acquiring``) and then closes this socket too.
            if let subscription { sockets.append(subscription) }
            return .acquired(mtu: mtu)
        } catch DBusError.remote(let name, let message) where Self.refusals.contains(name) {
            try await startNotify(path)
            return .startNotify(reason: "AcquireNotify refused: \(name.split(separator: ".").last ?? "")\(message.isEmpty ? "" : " \(message)")")
        }
    }

    /// AcquireNotify refusals that StartNotify can still serve (UnknownMethod: a BlueZ, or a
    /// stand-in, without AcquireNotify at all).
    static let refusals: Set<String> = [
        "org.bluez.Error.NotSupported", "org.bluez.Error.NotPermitted", "org.bluez.Error.InProgress",
        "org.freedesktop.DBus.Error.UnknownMethod",
    ]

    /// An acquired socket hung up. On a disconnect (BlueZ hangs up before it announces the
    /// drop) that is all: the supervisor sees the drop and the next link acquires again. Only
    /// if the machine is still connected and resolved a moment later did BlueZ release the
    /// socket on its own; then the characteristic is subscribed again. Never StartNotify at
    /// once: that session would outlive the link and make the next AcquireNotify InProgress.
    private func notifySocketEnded(_ characteristic: Characteristic, _ path: String, reason: String) async {
        guard !closed, reason != "cancelled" else { return }
        try? await client.clock.sleep(for: .seconds(1))
        await client.sync()
        let properties = await client.tree.properties(device, BlueZNames.device)
        guard !closed, properties?["Connected"]?.bool == true, properties?["ServicesResolved"]?.bool == true else { return }
        if let path = try? await acquireOrStart(characteristic, path) { info?.notifyPaths[characteristic] = path }
    }

    /// A bus-thread tap delivering each `Value` notification of `path` to `deliver`. A
    /// PropertiesChanged that carries only `Value` is consumed there: the object cache never
    /// sees it (nothing waits on a notified value), so it is neither stored nor scanned.
    private func tapValues(of path: String, _ deliver: @escaping @Sendable ([UInt8]) -> Void) -> SignalTap {
        connection.tapSignals(path: path) { signal in
            guard signal.member == "PropertiesChanged", signal.arguments.count >= 2,
                signal.arguments[0].string == BlueZNames.gattCharacteristic,
                case .dictionary(_, _, let entries) = signal.arguments[1],
                let entry = entries.first(where: { $0.key.string == "Value" }), let value = entry.value.bytes
            else { return false }
            deliver(value)
            return entries.count == 1 && (signal.arguments.count < 3 || signal.arguments[2].array?.isEmpty != false)
        }
    }

    /// Runs one Control Point procedure as it is: the raw primitive under ``send(_:timeout:)``,
    /// for callers that choose their own bytes. One procedure at a time; others queue.
    package func perform(_ request: ControlPointRequest, timeout: Duration = .seconds(3)) async throws -> ControlPointResponse {
        await acquireGate()
        defer { releaseGate() }
        var written: [[UInt8]] = []
        return try await exchange(request, timeout: timeout, written: &written)
    }

    /// Write, then wait for the 0x80 indication that echoes the op code; on a timeout, one
    /// retry, then a clear error (contract §4). Callers hold the gate.
    func exchange(_ request: ControlPointRequest, timeout: Duration, written: inout [[UInt8]]) async throws -> ControlPointResponse {
        let operation = request.opCode.map { "\($0.jsonName)" } ?? "op \(request.rawOpCode)"
        for attempt in 0...1 {
            written.append(request.encoded())
            do {
                return try await exchangeOnce(request, operation: operation, timeout: timeout)
            } catch LinkError.controlPointTimeout where attempt == 0 {
                continue
            }
        }
        throw LinkError.controlPointTimeout(operation: operation)
    }

    private func exchangeOnce(_ request: ControlPointRequest, operation: String, timeout: Duration) async throws -> ControlPointResponse {
        guard let controlPoint = gatt[.fitnessMachineControlPoint] else { throw LinkError.missingCharacteristic("Control Point (0x2AD9)") }
        guard !closed else { throw LinkError.disconnected }
        let device = device
        nextProcedure += 1
        let id = nextProcedure
        return try await withCheckedThrowingContinuation { continuation in
            pendingResponse = (id, request.rawOpCode, continuation)
            let timer = Task { [clock = client.clock] in
                try? await clock.sleep(for: timeout)
                self.failPending(id, LinkError.controlPointTimeout(operation: operation))
            }
            Task {
                do {
                    _ = try await connection.call(
                        destination: BlueZNames.service, path: controlPoint, interface: BlueZNames.gattCharacteristic,
                        member: "WriteValue", arguments: [.bytes(request.encoded()), .properties(["type": .string("request")])],
                        timeout: timeout)
                } catch {
                    timer.cancel()
                    self.failPending(id, LinkError.writeFailed(operation: operation, device: device, reason: "\(error)"))
                }
            }
        }
    }

    /// Fails procedure `id` if it is still the one waiting (it may long since have completed).
    private func failPending(_ id: UInt64, _ error: LinkError) {
        guard let pending = pendingResponse, pending.id == id else { return }
        pendingResponse = nil
        pending.continuation.resume(throwing: error)
    }

    private func controlPointIndication(_ value: [UInt8]) {
        guard case .response(let response) = value.withUnsafeBytes({ ControlPointMessage(decoding: $0) }),
            let pending = pendingResponse, response.requestOpCode == pending.request
        else { return }
        pendingResponse = nil
        pending.continuation.resume(returning: response)
    }

    func acquireGate() async {
        guard gateHeld else {
            gateHeld = true
            return
        }
        await withCheckedContinuation { gateQueue.append($0) }
    }

    /// Hands the gate to the next waiter in arrival order, so commands run as they were sent.
    func releaseGate() {
        if gateQueue.isEmpty {
            gateHeld = false
        } else {
            gateQueue.removeFirst().resume()
        }
    }

    /// Status 0xFF: another client took control, so the next command asks again first.
    nonisolated func statusArrived(_ value: [UInt8]) {
        if value.first == StatusOpCode.controlPermissionLost.rawValue { granted.store(false, ordering: .releasing) }
    }

    /// Stops the link's tasks, fails a waiting procedure, and gives its acquired sockets back
    /// (``releaseAcquired()``: returns once bluetoothd has shown it handled every hang-up),
    /// without asking BlueZ to disconnect: for a link that has already dropped. Only after it
    /// returns may the process leave the bus.
    package func close() async {
        closed = true
        for tap in taps { tap.cancel() }
        taps.removeAll()
        streamEnd?.finish()
        if let pending = pendingResponse {
            pendingResponse = nil
            pending.continuation.resume(throwing: LinkError.disconnected)
        }
        await releaseAcquired()
    }

    /// Closes the link (its sockets given back and their hang-ups seen handled), then asks
    /// BlueZ to disconnect the machine.
    package func disconnect() async {
        await close()
        _ = try? await connection.call(
            destination: BlueZNames.service, path: device, interface: BlueZNames.device, member: "Disconnect", timeout: .seconds(5))
    }

    private func acquireEnded() {
        acquiring -= 1
        guard acquiring == 0 else { return }
        for waiter in acquiringWaiters { waiter.resume() }
        acquiringWaiters.removeAll()
    }

    /// Closes every acquired socket (closing is how a client gives one back: there is no
    /// StopNotify for them) and returns once bluetoothd has shown, for every characteristic
    /// this link acquired, that it has handled the hang-up.
    ///
    /// bluetoothd 5.66 crashes when a client leaves the bus, or disconnects the device and
    /// leaves, before it has handled the hang-up of that client's acquired socket: it frees
    /// the client's notify session when the client goes (`notify_client_disconnect`), then
    /// touches it again when the hang-up comes (`sock_hup`); docs/bluez.md "Giving acquired
    /// sockets back". The reply to a call sent after the close proves nothing (its main loop
    /// answers D-Bus before it gets to the socket). What does: `NotifyAcquired` false, which
    /// `sock_hup` sets and announces; the characteristic's object gone (its socket is freed
    /// with it, no hang-up follows); bluetoothd gone from the bus. A link that dropped is no
    /// proof: bluetoothd shuts the socket down and still handles its hang-up later, so that
    /// path waits too. Runs to its end in a cancelled task (a stop signal, a daemon stop):
    /// nothing here gives up on a timer; only losing the bus connection ends it early, and then
    /// the process has left already.
    private func releaseAcquired() async {
        while acquiring > 0 { await withCheckedContinuation { acquiringWaiters.append($0) } }
        let open = sockets
        sockets.removeAll()
        for socket in open { _ = await socket.close() }
        let pending = acquiredPaths
        guard !pending.isEmpty else { return }
        let client = client
        // Unstructured, so the caller's cancellation does not end the waits early.
        await Task {
            for path in pending { await Self.waitForHangUp(of: path, client: client) }
        }.value
        acquiredPaths.subtract(pending)
    }

    /// Waits until bluetoothd shows it has handled the hang-up of `path`'s acquired socket:
    /// the cache (fed by PropertiesChanged, InterfacesRemoved and NameOwnerChanged) says so,
    /// or, each second without a signal, a `Properties.Get` of `NotifyAcquired` does (a lost
    /// or unsent signal cannot hold the exit for good). The second is a re-check, never a
    /// deadline.
    ///
    /// The cache's word is only a cue: bluetoothd's own answer is the proof. The cache may still
    /// hold the `false` it read before AcquireNotify (the `true` that followed can be on its way
    /// through the bus thread when a quick exit closes the socket), so a cached `false` is asked
    /// again with a `Get`, which bluetoothd answers from `chrc->notify_io` itself.
    private static func waitForHangUp(of path: String, client: BlueZClient) async {
        let connection = client.connection
        while connection.isConnected {
            let cued = await client.wait(until: { MachineLink.hangUpHandled(path, in: $0) }, timeout: .seconds(1))
            do {
                let reply = try await connection.call(
                    destination: BlueZNames.service, path: path, interface: BlueZNames.properties, member: "Get",
                    arguments: [.string(BlueZNames.gattCharacteristic), .string("NotifyAcquired")], timeout: .seconds(5))
                if reply.first?.bool == false { return }
                // A stale cue: give the signals on their way a moment before asking again.
                if cued { try? await client.clock.sleep(for: .milliseconds(50)) }
            } catch DBusError.remote(let name, _) where isGone(name) {
                return
            } catch {
                // No answer in time (a loaded bluetoothd): ask again; only its word ends the wait.
                continue
            }
        }
    }

    /// Whether `tree` shows bluetoothd done with `path`'s acquired socket: `NotifyAcquired`
    /// false, or the characteristic gone (removed, or bluetoothd left the bus).
    static func hangUpHandled(_ path: String, in tree: ObjectTree) -> Bool {
        guard let properties = tree.properties(path, BlueZNames.gattCharacteristic) else { return true }
        return properties["NotifyAcquired"]?.bool == false
    }

    /// Whether an error answer says the characteristic, or bluetoothd, is gone: one of
    /// ``goneErrors``, or the bus failing to start a bluetoothd that is not running
    /// (`org.freedesktop.DBus.Error.Spawn.*`: a system bus with `org.bluez` activatable answers
    /// so, not `ServiceUnknown`, once bluetoothd has crashed; seen in the VM after 5.66 aborted).
    static func isGone(_ name: String) -> Bool {
        goneErrors.contains(name) || name.hasPrefix("org.freedesktop.DBus.Error.Spawn.")
    }

    /// Answers saying the characteristic, or bluetoothd, is gone: nothing of it can be touched again.
    static let goneErrors: Set<String> = [
        "org.freedesktop.DBus.Error.UnknownObject", "org.freedesktop.DBus.Error.UnknownMethod",
        "org.freedesktop.DBus.Error.UnknownInterface", "org.freedesktop.DBus.Error.ServiceUnknown",
        "org.freedesktop.DBus.Error.NameHasNoOwner",
    ]

    // MARK: GATT

    private func read(_ path: String) async throws -> [UInt8] {
        let reply = try await connection.call(
            destination: BlueZNames.service, path: path, interface: BlueZNames.gattCharacteristic,
            member: "ReadValue", arguments: [.properties([:])], timeout: .seconds(5))
        return reply.first?.bytes ?? []
    }

    private func readText(_ path: String) async throws -> String {
        String(decoding: try await read(path), as: UTF8.self)
    }

    private func startNotify(_ path: String) async throws {
        _ = try await connection.call(
            destination: BlueZNames.service, path: path, interface: BlueZNames.gattCharacteristic,
            member: "StartNotify", timeout: .seconds(5))
    }
}
