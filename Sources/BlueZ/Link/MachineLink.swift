import DBus
public import FTMS

/// One machine's connection: the SPEC §2 connect sequence, its notifications, and its
/// Control Point with one procedure in flight (SPEC §4).
public actor MachineLink {
    public let client: BlueZClient
    public let device: String
    public private(set) var info: MachineInfo?
    private var gatt = GattMap(tree: ObjectTree(), device: "/")
    private var pendingResponse: (id: UInt64, request: UInt8, continuation: CheckedContinuation<ControlPointResponse, any Error>)?
    /// One procedure at a time (SPEC §4), and a command's fallbacks and re-requests hold it
    /// throughout, so no other write lands between them.
    private var gateHeld = false
    private var gateQueue: [CheckedContinuation<Void, Never>] = []
    /// Whether our Request Control stands: false until granted, and again after Status 0xFF
    /// or a 0x05 answer.
    var controlGranted = false
    private var closed = false
    /// Learned resistance forms, shared with every link to the same model.
    public let resistanceForms: ResistanceFormMemory
    private var nextProcedure: UInt64 = 0
    private var controlPointWatcher: Task<Void, Never>?
    /// Filled from before the first StartNotify, so no frame between subscribing and the
    /// caller's first read is lost.
    private var buffered: AsyncStream<(Characteristic, [UInt8])>?
    private var bufferTask: Task<Void, Never>?

    public init(client: BlueZClient, device: String, resistanceForms: ResistanceFormMemory = ResistanceFormMemory()) {
        self.client = client
        self.device = device
        self.resistanceForms = resistanceForms
    }

    private var connection: DBusConnection { client.connection }

    /// Connect, then wait for ServicesResolved (raced against Connected=false and removal),
    /// then Device Information, Feature, subscriptions, indications, Request Control: the
    /// order of SPEC §2.
    public func connect(timeout: Duration = .seconds(20), resolveTimeout: Duration = .seconds(20)) async throws -> MachineInfo {
        let device = device
        do {
            _ = try await connection.call(
                destination: BlueZNames.service, path: device, interface: BlueZNames.device, member: "Connect", timeout: timeout)
        } catch let error as DBusError {
            throw LinkError.connectFailed(error.description)
        }
        // BlueZ sent Connected=true before its reply: make the cache show it before judging.
        await client.sync()
        let resolved = await client.wait(until: { tree in
            let properties = tree.properties(device, BlueZNames.device)
            return properties == nil || properties?["Connected"]?.bool == false || properties?["ServicesResolved"]?.bool == true
        }, timeout: resolveTimeout)
        let tree = await client.tree
        guard let properties = tree.properties(device, BlueZNames.device), properties["Connected"]?.bool == true else {
            throw LinkError.disconnected
        }
        guard resolved, properties["ServicesResolved"]?.bool == true else { throw LinkError.servicesNeverResolved }

        gatt = GattMap(tree: tree, device: device)
        let name = properties["Name"]?.string ?? properties["Alias"]?.string ?? ""
        var kind = MachineKind(name: name)
        if kind == .unknown { kind = gatt[.indoorBikeData] != nil ? .bike : (gatt[.rowerData] != nil ? .rower : .unknown) }
        guard let data = kind == .rower ? gatt[.rowerData] : gatt[.indoorBikeData] else {
            throw LinkError.missingCharacteristic(kind == .rower ? "Rower Data (0x2AD1)" : "Indoor Bike Data (0x2AD2)")
        }
        guard let controlPoint = gatt[.fitnessMachineControlPoint] else {
            throw LinkError.missingCharacteristic("Control Point (0x2AD9)")
        }
        var info = MachineInfo(
            path: device, name: name, address: properties["Address"]?.string ?? "", kind: kind)
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
        await startBuffering()
        try await startNotify(data)
        if let status = gatt[.fitnessMachineStatus] { try await startNotify(status) }
        watchControlPoint(controlPoint)
        try await startNotify(controlPoint)
        self.info = info
        await acquireGate()
        defer { releaseGate() }
        var written: [[UInt8]] = []
        try await requestControl(written: &written)
        return info
    }

    /// Every notification of the machine's data and status characteristics since the
    /// connect sequence subscribed, as (characteristic, bytes), in the order BlueZ sent them.
    /// One consumer: the stream is handed out once per connection.
    public func notifications() -> AsyncStream<(Characteristic, [UInt8])> {
        defer { buffered = nil }
        return buffered ?? AsyncStream { $0.finish() }
    }

    private func startBuffering() async {
        let watched: [String: Characteristic] = Dictionary(uniqueKeysWithValues: [Characteristic.indoorBikeData, .rowerData, .fitnessMachineStatus]
            .compactMap { characteristic in gatt[characteristic].map { ($0, characteristic) } })
        let signals = await client.signals(under: device)
        let (stream, continuation) = AsyncStream.makeStream(of: (Characteristic, [UInt8]).self)
        bufferTask?.cancel()
        bufferTask = Task {
            for await signal in signals {
                guard signal.member == "PropertiesChanged", let path = signal.path, let characteristic = watched[path],
                    let value = signal.arguments.count >= 2 ? signal.arguments[1].stringDictionary?["Value"]?.bytes : nil
                else { continue }
                if characteristic == .fitnessMachineStatus { self.statusArrived(value) }
                continuation.yield((characteristic, value))
            }
            continuation.finish()
        }
        continuation.onTermination = { [bufferTask] _ in bufferTask?.cancel() }
        buffered = stream
    }

    /// Runs one Control Point procedure as it is: the raw primitive under ``send(_:timeout:)``,
    /// for callers that choose their own bytes. One procedure at a time; others queue.
    public func perform(_ request: ControlPointRequest, timeout: Duration = .seconds(3)) async throws -> ControlPointResponse {
        await acquireGate()
        defer { releaseGate() }
        var written: [[UInt8]] = []
        return try await exchange(request, timeout: timeout, written: &written)
    }

    /// Write, then wait for the 0x80 indication that echoes the op code; on a timeout, one
    /// retry, then a clear error (SPEC §4). Callers hold the gate.
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

    private func watchControlPoint(_ path: String) {
        controlPointWatcher?.cancel()
        controlPointWatcher = Task { [client] in
            for await signal in await client.signals(under: path) {
                guard signal.path == path, signal.member == "PropertiesChanged",
                    let value = signal.arguments.count >= 2 ? signal.arguments[1].stringDictionary?["Value"]?.bytes : nil
                else { continue }
                self.controlPointIndication(value)
            }
        }
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
    func statusArrived(_ value: [UInt8]) {
        if value.first == StatusOpCode.controlPermissionLost.rawValue { controlGranted = false }
    }

    /// Stops the link's tasks and fails a waiting procedure, without asking BlueZ to
    /// disconnect: for a link that has already dropped.
    public func close() {
        closed = true
        controlPointWatcher?.cancel()
        bufferTask?.cancel()
        if let pending = pendingResponse {
            pendingResponse = nil
            pending.continuation.resume(throwing: LinkError.disconnected)
        }
    }

    public func disconnect() async {
        close()
        _ = try? await connection.call(
            destination: BlueZNames.service, path: device, interface: BlueZNames.device, member: "Disconnect", timeout: .seconds(5))
    }

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
