import DeterministicRandom
import Glibc
import Clocks
import DBus
import FTMS

/// The `org.bluez.Mock` controls on `/`. Names, signatures and meanings follow the Python
/// fake where they overlap (Tests/Fixtures/dbusmock/README.md); `device` is an object path
/// or an address, `char` a characteristic path, `hex` bytes as hex. Machines added here
/// stream nothing until `SetStreamRate`, so a test decides every frame.
extension BlueZSimulator {
    func mockCall(_ call: DBusMethodCall) throws(BusFailure) -> Answer {
        let arguments = call.arguments
        func text(_ index: Int) -> String { arguments[index].string ?? "" }
        func number(_ index: Int) -> Int { arguments[index].integer ?? 0 }
        switch call.member {
        case "AddAdapter":
            return .now([.string(try addAdapter(text(0)))])
        case "RemoveAdapter":
            let adapter = try adapter(named: text(0))
            for device in devices(on: adapter) {
                if device.exported { removeDevice(device, forget: true) }
                devices[device.path] = nil
            }
            removeObject(adapter.path)
            adapters[adapter.path] = nil
            log("adapter \(adapter.name) removed")
        case "AddDevice":
            return .now([.string(try addMachine(text(0), text(1), text(2), .plain, appearNow: true, rssi: -79).path)])
        case "AddFTMSMachine", "AddMachineInRange":
            guard let kind = MachineSpec.Kind(rawValue: text(3).lowercased()), kind.hasGatt || call.member == "AddMachineInRange" else {
                throw .mock("InvalidArguments", "kind must be \"bike\", \"rower\" or \"ftms\", not \"\(text(3))\"")
            }
            let device = try addMachine(text(0), text(1), text(2), kind, appearNow: call.member == "AddFTMSMachine", rssi: -60)
            return .now([.string(device.path)])
        case "AddNameOnlyDevice":
            return .now([.string(try addMachine(text(0), text(1), text(2), .nameOnly, appearNow: true, rssi: -70).path)])
        case "VanishDevice":
            let device = try device(text(0))
            guard device.exported else { throw .mock("NoSuchDevice", "device \(text(0)) is not on the bus") }
            removeDevice(device, forget: true)
        case "ConnectDevice":
            let device = try device(onAdapter: text(0), text(1))
            guard !device.connected else { return .now([]) }
            let replier = device.pendingConnect
            device.pendingConnect = nil
            cancelTimers(owner: device.path)
            device.known = true
            linkUp(device, mode: device.plan.mode == .noResolve ? .noResolve : .ok)
            if let replier { reply(replier) }
        case "DisconnectDevice":
            let device = try device(onAdapter: text(0), text(1))
            if let connect = device.pendingConnect {
                device.pendingConnect = nil
                cancelTimers(owner: device.path)
                fail(connect, .connectionCanceled)
            }
            linkDown(device, reason: "link lost (injected)")
        case "NotifyValue", "NotifyValueUnchecked", "NotifyValueTimed":
            let (device, characteristic) = try characteristic(text(0))
            let bytes = try hex(text(1))
            if call.member != "NotifyValueUnchecked", !device.connected || !characteristic.hasActiveSession {
                throw .mock("NotNotifying", "\(text(0)): device not connected or notifications not enabled")
            }
            deliver(characteristic, bytes)
            // For latency measurement: the CLOCK_MONOTONIC instant the signal left us, so a
            // client's delay is measured from emission, not from this control call.
            if call.member == "NotifyValueTimed" {
                flush()
                return .now([.uint64(UInt64(clamping: SystemClocks.monotonic().nanoseconds))])
            }
        case "SetValue":
            try characteristic(text(0)).1.value = try hex(text(1))
        case "GetWrites":
            let writes = try characteristic(text(0)).1.writes
            return .now([.array(element: "ay", writes.map(DBusValue.bytes))])
        case "ClearWrites":
            try characteristic(text(0)).1.writes = []
        case "GetGattPaths":
            let paths = gattPaths(try device(text(0)))
            return .now([.dictionary(key: "s", value: "s", paths.sorted { $0.key < $1.key }.map { DBusDictEntry(.string($0.key), .string($0.value)) })])
        case "SetResistanceForm":
            guard let form = MachineSpec.ResistanceForm(rawValue: text(1)) else {
                throw .mock("InvalidArguments", "form must be uint8, sint16 or any")
            }
            try device(text(0)).controlPoint.resistanceForm = form
        case "SetIndicationOrder":
            guard let order = IndicationOrder(rawValue: text(1)) else {
                throw .mock("InvalidArguments", "order must be after-reply, before-reply or none")
            }
            try device(text(0)).indicationOrder = order
        case "SetWriteDelay":
            try device(text(0)).writeDelay = .milliseconds(number(1))
        case "SetControlPointResult":
            let device = try device(text(0))
            let op = UInt8(truncatingIfNeeded: number(1))
            device.controlPoint.forcedResults[op] = number(2) == 0 ? nil : UInt8(truncatingIfNeeded: number(2))
        case "LoseControl":
            loseControl(try device(text(0)))
        case "SetConnectBehaviour":
            guard let mode = ConnectPlan.Mode(rawValue: text(1)) else {
                throw .mock("InvalidArguments", "mode must be ok, abort, hang, no-resolve or early-resolve")
            }
            let device = try device(text(0))
            device.plan.mode = mode
            device.plan.scripted = []
            device.plan.connectDelay = .milliseconds(number(2))
            device.plan.resolveDelay = .milliseconds(number(3))
        case "ForgetGattCache":
            let device = try device(text(0))
            guard !device.connected else { throw .mock("Busy", "disconnect first") }
            unexportGatt(device)
            if device.exported {
                setProperty(device.path, BusNames.device, "UUIDs", .array(element: "s", device.advertisedUUIDs.map(DBusValue.string)))
            }
        case "DropServices":
            let device = try device(text(0))
            guard device.connected else { throw .mock("NotConnected", "the server goes while linked: connect first") }
            dropServices(device)
        case "SetDiscoveryFailures":
            try adapter(named: text(0)).failuresToInject = number(1)
        case "SetAsleep":
            setAsleep(try device(text(0)), arguments[1].bool ?? true)
        case "SetRSSI":
            let device = try device(text(0))
            device.reportedRSSI = number(1)
            heardAdvertisement(device)
            setProperty(device.path, BusNames.device, "RSSI", rssiValue(number(1)))
        case "RestartBluetoothd":
            let down = Duration.milliseconds(number(0))
            // Answer first: a closing connection may not deliver what is still queued.
            after(.milliseconds(20), owner: "fault") { self.restartBluetoothd(down: down) }
        case "SetPowered":
            setPowered(try adapter(named: text(0)), arguments[1].bool ?? true)
        case "DropLinkAfter":
            let device = try device(text(0))
            if number(1) == 0 {
                linkDown(device, reason: "link lost (injected)")
            } else {
                device.dropAfterFrames = device.framesThisLink + number(1)
            }
        case "SetStreamRate":
            let device = try device(text(0))
            guard let rate = arguments[1].double, rate >= 0, rate <= 1000 else {
                throw .mock("InvalidArguments", "hz must be between 0 and 1000")
            }
            device.spec.streamRate = rate
            if device.resolved { startStreaming(device) }
        case "SendBadlyTypedProperty":
            let device = try device(text(0))
            guard device.exported, let property = InterfaceSchema.device.property(text(1)) else {
                throw .mock("InvalidArguments", "no Device1 property \(text(1)) on \(text(0))")
            }
            let wrong: DBusValue = property.type == "s" ? .int32(42) : .string("garbage")
            setProperty(device.path, BusNames.device, property.name, wrong)
        case "GetCallLog":
            return .now([.array(element: "s", callLog.map(DBusValue.string))])
        case "ClearCallLog":
            callLog = []
        default:
            throw .unknown(objectExists: true, member: call.member, signature: "", interface: BusNames.mock)
        }
        return .now([])
    }

    private func addAdapter(_ name: String) throws(BusFailure) -> String {
        let path = "/org/bluez/" + name
        guard !name.isEmpty, !name.contains("/"), adapters[path] == nil else {
            throw .mock("AlreadyExists", "adapter \(name) exists or is not a name")
        }
        let adapter = AdapterState(name: name, index: adapters.count)
        adapters[path] = adapter
        addAdapterObject(adapter, announce: true)
        log("adapter \(name) added")
        return path
    }

    /// A machine added at run time. `appearNow`: on the bus at once, as if just heard, with
    /// its GATT cache when it has one (the Python fake's AddFTMSMachine); otherwise it waits
    /// for discovery to find it.
    private func addMachine(
        _ adapterName: String, _ address: String, _ name: String, _ kind: MachineSpec.Kind, appearNow: Bool, rssi: Int
    ) throws(BusFailure) -> DeviceState {
        let adapter = try adapter(named: adapterName)
        guard address.isBluetoothAddress else { throw .mock("InvalidArguments", "not a Bluetooth address: \(address)") }
        let spec = MachineSpec(name: name, address: address, kind: kind, adapter: adapter.name,
                               seed: SplitMix64.derive(0xF7E5, devices.count), streamRate: 0,
                               known: appearNow && kind.hasGatt, rssi: rssi)
        guard devices[spec.devicePath] == nil else { throw .mock("AlreadyExists", "device \(spec.devicePath) exists") }
        let device = DeviceState(spec: spec, timing: configuration.timing)
        air?.enter(spec)
        devices[device.path] = device
        if appearNow {
            device.reportedRSSI = rssi
            heardAdvertisement(device)
            exportDevice(device, announce: true, withGatt: device.known)
        } else if adapter.discovering {
            after(configuration.timing.firstAdvertisement, owner: "discovery " + adapter.path) { self.heard(device, on: adapter) }
        }
        log("\(kind.rawValue) \(name) \(spec.address) added on \(adapter.name)\(appearNow ? "" : ", in range")")
        return device
    }

    private func device(onAdapter adapterName: String, _ address: String) throws(BusFailure) -> DeviceState {
        let device = try device(address)
        guard device.adapterPath == "/org/bluez/" + adapterName else {
            throw BusFailure("org.bluez.Mock.NoSuchDevice", "Device \(address) does not exist.")
        }
        return device
    }

    private func characteristic(_ path: String) throws(BusFailure) -> (DeviceState, CharacteristicState) {
        guard let device = owner(ofGatt: path), let characteristic = device.characteristics[path] else {
            throw .mock("NoSuchCharacteristic", "no characteristic \(path)")
        }
        return (device, characteristic)
    }

    private func hex(_ text: String) throws(BusFailure) -> [UInt8] {
        guard let bytes = Hex.bytes(text) else { throw .mock("InvalidArguments", "not hex bytes: '\(text)'") }
        return bytes
    }
}
