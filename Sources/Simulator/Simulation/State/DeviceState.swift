import DeterministicRandom
import DBus

/// One simulated peripheral and its Device1 object. Owned by the simulator actor.
final class DeviceState {
    var spec: MachineSpec
    let path: String
    let adapterPath: String
    let layout: GattLayout
    let advertisement: Advertisement

    /// The Device1 object is on the bus.
    var exported = false
    /// Connected before: persisted, so it survives a bluetoothd restart and never expires.
    var known: Bool
    /// The GATT objects are on the bus (BlueZ's cache).
    var gattExported = false
    var connected = false
    var resolved = false
    /// Bumped at every link-up, so a stale timer or stream of an earlier link does nothing.
    var link = 0
    var linkMode: ConnectPlan.Mode = .ok
    var pendingConnect: DBusMethodReplier?
    /// Disconnect() calls waiting for the link to go down.
    var disconnectRepliers: [DBusMethodReplier] = []
    var disconnecting = false
    var plan: ConnectPlan

    var characteristics: [String: CharacteristicState] = [:]
    var controlPoint: ControlPointMachine
    var indicationOrder = IndicationOrder.afterReply
    var writeDelay: Duration = .zero
    /// Control Point writes whose reply is delayed, failed if the link drops.
    var pendingWrites: [UInt64: DBusMethodReplier] = [:]

    var source: any MachineDataSource
    var streamTask: Task<Void, Never>?
    var framesThisLink = 0
    /// When the last frame went out, for ``SimulatorConfiguration/ridersRideOn``; nil after
    /// the machine slept (nobody rode it meanwhile).
    var lastFrameAt: ContinuousClock.Instant?
    var dropAfterFrames: Int?
    var loseControlAfterFrames: Int?

    /// Switched off or asleep: not advertising, Connect() fails (``Fault/switchOn(after:)``,
    /// ``Fault/sleep(after:asleep:)``, `SetAsleep`).
    var asleep = false

    var rssiNoise: SplitMix64
    /// The RSSI last reported; nil while BlueZ has none (no discovery since it was seen).
    var reportedRSSI: Int?
    /// The service data bluetoothd holds from the advertisements it heard (`ServiceData`):
    /// 5.66 keeps it in memory only (`dev->ad`), refreshes it from every advertisement, even a
    /// resolved device's, and lists the property only while it holds some. A restarted
    /// bluetoothd has none until it hears the machine again.
    var heardServiceData: [UInt16: [UInt8]] = [:]

    init(spec: MachineSpec, timing: SimulatorTiming) {
        self.spec = spec
        path = spec.devicePath
        adapterPath = "/org/bluez/" + spec.adapter
        layout = GattLayout(kind: spec.kind)
        advertisement = Advertisement(kind: spec.kind)
        known = spec.known
        plan = ConnectPlan(connectDelay: timing.connect, resolveDelay: timing.resolve)
        controlPoint = ControlPointMachine(layout: layout, resistanceForm: spec.resistanceForm)
        source = spec.dataSource()
        rssiNoise = SplitMix64(seed: spec.seed ^ 0x5151)
    }

    func characteristic(_ uuid: UInt16) -> CharacteristicState? {
        characteristics.values.first { $0.uuid == uuid }
    }

    var advertisedUUIDs: [String] { advertisement.uuids.map(fullUUID).sorted() }

    var resolvedUUIDs: [String] {
        Advertisement.resolvedUUIDs(advertised: advertisement.uuids, layout: layout).map(fullUUID).sorted()
    }
}

/// When the Control Point's response indication goes out relative to the WriteValue reply.
enum IndicationOrder: String, Sendable, CaseIterable {
    case afterReply = "after-reply"
    case beforeReply = "before-reply"
    /// Never: the client's timeout path.
    case none
}
