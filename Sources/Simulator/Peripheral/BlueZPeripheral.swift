import DBus
import FTMS

/// An SF machine made real through BlueZ's own peripheral APIs: a GATT application registered with
/// `org.bluez.GattManager1.RegisterApplication` and an advertisement with
/// `org.bluez.LEAdvertisingManager1.RegisterAdvertisement`, on one adapter of the system bus's
/// bluetoothd.
///
/// The machine model is the simulated bluetoothd's: ``ControlPointMachine`` answers the Control
/// Point, a ``MachineDataSource`` (``RiderModel`` or a ``RecordedRide``) makes the frames. Only the
/// transport differs: here bluetoothd calls us (ReadValue, WriteValue, StartNotify) and forwards
/// each `PropertiesChanged` of a characteristic's `Value` to the connected client as an ATT
/// notification or indication, so a gateway talks to this process through the kernel's ATT layer.
public actor BlueZPeripheral {
    public enum Ending: Sendable, Equatable {
        case stopped
        case busLost
    }

    private let configuration: PeripheralConfiguration
    private let busAddress: String
    private let log: EventLog
    private let tree: PeripheralTree
    private var controlPoint: ControlPointMachine
    private var source: any MachineDataSource
    private var values: [String: [UInt8]] = [:]
    private var notifying: Set<String> = []
    private var bus: DBusConnection?
    private var streamTask: Task<Void, Never>?
    private var callsTask: Task<Void, Never>?
    private var watchTask: Task<Void, Never>?
    private var ending: Ending?
    /// A restarted bluetoothd has not taken our application and advertisement yet: each
    /// `InterfacesAdded` of our adapter tries again.
    private var unregistered = false
    private var waiters: [CheckedContinuation<Ending, Never>] = []

    public init(configuration: PeripheralConfiguration, busAddress: String, log: EventLog) {
        self.configuration = configuration
        self.busAddress = busAddress
        self.log = log
        tree = PeripheralTree(machine: configuration.machine, firstHandle: configuration.firstHandle)
        controlPoint = ControlPointMachine(kind: configuration.machine.kind, resistanceForm: configuration.machine.resistanceForm)
        source = configuration.machine.dataSource()
        for characteristic in tree.characteristics { values[characteristic.path] = characteristic.value }
    }

    var adapterPath: String { "/org/bluez/" + configuration.adapter }

    /// Connects, exports the objects, registers both with bluetoothd. Throws a one-line reason
    /// (no such adapter, bluetoothd refused) after undoing what was done.
    public func start() async throws(SimulatorError) {
        let bus: DBusConnection
        do {
            bus = try await DBusConnection.connect(address: busAddress)
        } catch {
            throw SimulatorError("cannot connect to the bus at \(busAddress): \(error)")
        }
        self.bus = bus
        let (calls, callsContinuation) = AsyncStream.makeStream(of: DBusMethodCall.self)
        // The bus thread only queues; one task answers in arrival order (a write's indication
        // must follow its reply, and a StartNotify must precede the frames it enables).
        let handler: @Sendable (DBusMethodCall) -> Void = { callsContinuation.yield($0) }
        callsTask = Task { [weak self] in
            for await call in calls { await self?.answer(call) }
        }
        do {
            try bus.export(path: tree.root, subtree: true, handler: handler)
            let connections = try await bus.signals(matchingAny: [
                MatchRule(
                    sender: "org.bluez", interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                    pathNamespace: adapterPath),
                MatchRule(
                    sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged", arg0: "org.bluez"),
                // Its object path argument is matched here (`argN` matches strings only).
                MatchRule(sender: "org.bluez", interface: "org.freedesktop.DBus.ObjectManager", member: "InterfacesAdded"),
            ])
            watchTask = Task { [weak self] in
                for await signal in connections { await self?.observe(signal) }
                await self?.finish(.busLost)
            }
            try await register(on: bus)
        } catch {
            bus.close()
            self.bus = nil
            throw SimulatorError("\(configuration.adapter): \(Self.describe(error))")
        }
        log("registered \(configuration.machine.name) (\(configuration.machine.kind.rawValue)) on \(configuration.adapter): GATT application \(tree.root), advertisement \(tree.advertisementPath)")
    }

    /// Registers the application and the advertisement with the adapter's bluetoothd.
    ///
    /// The adapter's Alias is set to the machine's name first: it is the GAP Device Name
    /// (0x2A00) bluetoothd serves, and a client's bluetoothd reads that name once connected and
    /// replaces the advertised one with it (Device1.Name). Left alone, a connected SF-Bike-0001
    /// would become "BlueZ 5.66" on the gateway, as no real SF machine does.
    private func register(on bus: DBusConnection) async throws {
        _ = try await bus.call(
            destination: "org.bluez", path: adapterPath, interface: "org.freedesktop.DBus.Properties", member: "Set",
            arguments: [.string("org.bluez.Adapter1"), .string("Alias"), .variant(.string(configuration.machine.name))],
            timeout: .seconds(10))
        // AlreadyExists: an earlier attempt got this far (a retry after a restarted bluetoothd
        // registered the application, then found the adapter not ready for the advertisement).
        try await alreadyDoneIsDone {
            _ = try await bus.call(
                destination: "org.bluez", path: adapterPath, interface: "org.bluez.GattManager1", member: "RegisterApplication",
                arguments: [.objectPath(tree.root), DBusValue.properties([:])], timeout: .seconds(10))
        }
        try await alreadyDoneIsDone {
            _ = try await bus.call(
                destination: "org.bluez", path: adapterPath, interface: "org.bluez.LEAdvertisingManager1",
                member: "RegisterAdvertisement", arguments: [.objectPath(tree.advertisementPath), DBusValue.properties([:])],
                timeout: .seconds(10))
        }
    }

    private func alreadyDoneIsDone(_ register: () async throws -> Void) async throws {
        do {
            try await register()
        } catch DBusError.remote(let name, _) where name == "org.bluez.Error.AlreadyExists" {
            return
        }
    }

    /// A restarted bluetoothd knows nothing of us: register again, as a machine's firmware keeps
    /// advertising whatever happens to a gateway. It takes its name before its adapters are on
    /// the bus (in a loaded guest, seconds before), so a refusal now is tried again when our
    /// adapter appears (``observe(_:)``: `InterfacesAdded`), not on a timer: no attempt is
    /// wasted, and none comes late however long bluetoothd takes.
    private func reregister() async {
        guard let bus, ending == nil else { return }
        controlPoint.loseControl()
        stopStreaming()
        notifying.removeAll()
        unregistered = true
        await registerAgain(on: bus, when: "bluetoothd is back")
    }

    private func registerAgain(on bus: DBusConnection, when: String) async {
        do {
            try await register(on: bus)
            unregistered = false
            log("registered again with the new bluetoothd (\(when))")
        } catch {
            log("not registered yet (\(when)), again when \(configuration.adapter) appears: \(Self.describe(error))")
        }
    }

    /// bluetoothd 5.66 does not advertise again on an adapter powered off and on (seen in the VM:
    /// no advertising after `btmgmt power on`), while a machine's firmware advertises whenever it
    /// has no link: register the advertisement anew.
    private func advertiseAgain() async {
        guard let bus, ending == nil else { return }
        _ = try? await bus.call(
            destination: "org.bluez", path: adapterPath, interface: "org.bluez.LEAdvertisingManager1",
            member: "UnregisterAdvertisement", arguments: [.objectPath(tree.advertisementPath)], timeout: .seconds(5))
        do {
            _ = try await bus.call(
                destination: "org.bluez", path: adapterPath, interface: "org.bluez.LEAdvertisingManager1",
                member: "RegisterAdvertisement", arguments: [.objectPath(tree.advertisementPath), DBusValue.properties([:])],
                timeout: .seconds(10))
            log("\(configuration.adapter) powered on: advertising again")
        } catch {
            log("\(configuration.adapter) powered on, cannot advertise again: \(Self.describe(error))")
        }
    }

    /// Unregisters and closes the bus; `finished()` then returns `.stopped`.
    public func stop() async {
        if let bus, bus.isConnected {
            _ = try? await bus.call(
                destination: "org.bluez", path: adapterPath, interface: "org.bluez.LEAdvertisingManager1",
                member: "UnregisterAdvertisement", arguments: [.objectPath(tree.advertisementPath)], timeout: .seconds(3))
            _ = try? await bus.call(
                destination: "org.bluez", path: adapterPath, interface: "org.bluez.GattManager1",
                member: "UnregisterApplication", arguments: [.objectPath(tree.root)], timeout: .seconds(3))
        }
        finish(.stopped)
    }

    /// Returns when stopped or when the bus went away.
    public func finished() async -> Ending {
        if let ending { return ending }
        return await withCheckedContinuation { waiters.append($0) }
    }

    private func finish(_ reason: Ending) {
        guard ending == nil else { return }
        ending = reason
        streamTask?.cancel()
        watchTask?.cancel()
        callsTask?.cancel()
        bus?.close()
        for waiter in waiters { waiter.resume(returning: reason) }
        waiters.removeAll()
    }

    // MARK: Calls from bluetoothd

    private func answer(_ call: DBusMethodCall) {
        let replier = call.replier
        switch (call.interface, call.member) {
        case ("org.freedesktop.DBus.ObjectManager", "GetManagedObjects") where call.path == tree.root:
            replier.reply([tree.managedObjects()])
        case ("org.freedesktop.DBus.Properties", "GetAll"):
            guard let properties = properties(of: call.path, interface: call.arguments.first?.string ?? "") else {
                return replier.fail(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "no such interface")
            }
            replier.reply([DBusValue.properties(properties)])
        case ("org.freedesktop.DBus.Properties", "Get"):
            guard let name = call.arguments.dropFirst().first?.string,
                let value = properties(of: call.path, interface: call.arguments.first?.string ?? "")?[name]
            else { return replier.fail(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "no such property") }
            replier.reply([.variant(value)])
        case (PeripheralTree.advertisementInterface, "Release"):
            log("advertisement released by bluetoothd")
            replier.reply()
        case (PeripheralTree.gattCharacteristic, let member):
            guard let characteristic = tree.characteristic(at: call.path) else {
                return replier.fail(name: "org.bluez.Error.Failed", message: "no such characteristic")
            }
            characteristicCall(member, characteristic, call)
        case ("org.freedesktop.DBus.Introspectable", "Introspect"):
            replier.reply([.string("<node></node>")])
        default:
            replier.fail(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "\(call.interface).\(call.member) is not served here")
        }
    }

    private func properties(of path: String, interface: String) -> [String: DBusValue]? {
        if path == tree.advertisementPath, interface == PeripheralTree.advertisementInterface {
            return tree.advertisementProperties()
        }
        if let characteristic = tree.characteristic(at: path), interface == PeripheralTree.gattCharacteristic {
            return tree.characteristicProperties(characteristic, value: values[path] ?? [], notifying: notifying.contains(path))
        }
        return nil
    }

    private func characteristicCall(_ member: String, _ characteristic: PeripheralTree.Characteristic, _ call: DBusMethodCall) {
        let replier = call.replier
        switch member {
        case "ReadValue":
            let offset = call.arguments.first?.stringDictionary?["offset"]?.integer ?? 0
            let value = values[characteristic.path] ?? []
            guard offset <= value.count else { return replier.fail(name: "org.bluez.Error.InvalidOffset", message: "offset \(offset)") }
            if configuration.verbose { log("read 0x\(hex4(characteristic.uuid))") }
            replier.reply([.bytes(Array(value[offset...]))])
        case "WriteValue":
            guard characteristic.uuid == ControlPointUUID.value, let request = call.arguments.first?.bytes, !request.isEmpty else {
                return replier.fail(name: "org.bluez.Error.NotPermitted", message: "write not permitted")
            }
            replier.reply()
            controlPointWrite(request)
        case "StartNotify":
            replier.reply()
            setNotifying(characteristic, true)
        case "StopNotify":
            replier.reply()
            setNotifying(characteristic, false)
        case "Confirm":
            replier.reply()
        default:
            replier.fail(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "\(member) is not served here")
        }
    }

    private enum ControlPointUUID { static let value: UInt16 = 0x2AD9 }

    /// The write was answered first (bluetoothd sends the ATT Write Response on our reply); the
    /// indication and the status notification follow, as a machine's firmware sends them.
    private func controlPointWrite(_ request: [UInt8]) {
        let outcome = controlPoint.handle(request)
        log("control point \(Hex.string(request)) -> \(Hex.string(outcome.response))")
        if let controlPointCharacteristic = tree.characteristic(uuid: ControlPointUUID.value) {
            send(controlPointCharacteristic, outcome.response)
        }
        if let status = outcome.status, let statusCharacteristic = tree.characteristic(uuid: 0x2ADA),
            notifying.contains(statusCharacteristic.path)
        {
            send(statusCharacteristic, status)
        }
        if let event = outcome.event { source.apply(event) }
    }

    private func setNotifying(_ characteristic: PeripheralTree.Characteristic, _ on: Bool) {
        guard on != notifying.contains(characteristic.path) else { return }
        if on { notifying.insert(characteristic.path) } else { notifying.remove(characteristic.path) }
        log("\(on ? "notifications on" : "notifications off") 0x\(hex4(characteristic.uuid))")
        try? bus?.emitSignal(
            path: characteristic.path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
            arguments: [.string(PeripheralTree.gattCharacteristic), DBusValue.properties(["Notifying": .bool(on)]), .array(element: "s", [])])
        if characteristic.uuid == source.characteristic.rawValue { on ? startStreaming() : stopStreaming() }
        if characteristic.uuid == ControlPointUUID.value, !on { controlPoint.loseControl() }
    }

    /// A notification or indication: bluetoothd forwards every `PropertiesChanged` of `Value`.
    private func send(_ characteristic: PeripheralTree.Characteristic, _ value: [UInt8]) {
        values[characteristic.path] = value
        try? bus?.emitSignal(
            path: characteristic.path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
            arguments: [.string(PeripheralTree.gattCharacteristic), DBusValue.properties(["Value": .bytes(value)]), .array(element: "s", [])])
    }

    // MARK: Frames

    private func startStreaming() {
        streamTask?.cancel()
        guard configuration.rate > 0 else { return }
        let interval = Duration.seconds(1 / configuration.rate)
        streamTask = Task { [weak self] in
            var deadline = ContinuousClock.now
            while !Task.isCancelled {
                deadline += interval
                try? await Task.sleep(until: deadline, clock: .continuous)
                guard !Task.isCancelled, let self, await self.streamTick(interval) else { return }
            }
        }
    }

    private func stopStreaming() {
        streamTask?.cancel()
        streamTask = nil
    }

    private func streamTick(_ interval: Duration) -> Bool {
        guard let data = tree.characteristic(uuid: source.characteristic.rawValue), notifying.contains(data.path) else { return false }
        guard let frame = source.nextFrame(after: interval) else {
            log("data source of \(configuration.machine.name) ended")
            return false
        }
        send(data, frame)
        if configuration.verbose { log("frame \(Hex.string(frame))") }
        return true
    }

    // MARK: The link, as bluetoothd reports it

    /// A client's link on our adapter came or went (Device1.Connected): a lost link loses control,
    /// as a machine's firmware forgets its controller when the link drops.
    private func observe(_ signal: DBusMessage) async {
        if signal.member == "NameOwnerChanged" {
            let owner = signal.arguments.dropFirst(2).first?.string ?? ""
            log(owner.isEmpty ? "bluetoothd left the bus" : "bluetoothd is back on the bus as \(owner)")
            if !owner.isEmpty { await reregister() }
            return
        }
        if signal.member == "InterfacesAdded" {
            if unregistered, signal.arguments.first?.string == adapterPath, let bus, ending == nil { await registerAgain(on: bus, when: "\(configuration.adapter) appeared") }
            return
        }
        if signal.arguments.first?.string == "org.bluez.Adapter1", signal.path == adapterPath,
            signal.arguments.dropFirst().first?.stringDictionary?["Powered"]?.bool == true
        {
            await advertiseAgain()
            return
        }
        guard signal.arguments.first?.string == "org.bluez.Device1",
            let connected = signal.arguments.dropFirst().first?.stringDictionary?["Connected"]?.bool
        else { return }
        log("\(connected ? "connected" : "disconnected"): \(signal.path ?? "?")")
        // Notifications stay as bluetoothd left them: it calls StopNotify itself when the last
        // subscriber goes, and a client that comes back writes the CCC again.
        if !connected { controlPoint.loseControl() }
    }

    private static func describe(_ error: any Error) -> String {
        if case DBusError.remote(let name, let message) = error { return "\(name): \(message)" }
        return "\(error)"
    }
}
