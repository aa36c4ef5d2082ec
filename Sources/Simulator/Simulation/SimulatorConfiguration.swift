import DeterministicRandom

/// Everything a simulator run starts from.
public struct SimulatorConfiguration: Sendable, Equatable {
    /// Adapter names, `hci0` first.
    public var adapters: [String]
    public var machines: [MachineSpec]
    public var timing: SimulatorTiming
    public var faults: [Fault]
    /// Log every call and every notified frame, not only what changes state.
    public var verbose: Bool
    /// Whether AcquireNotify is served (as 5.66 does for `notify` characteristics); false
    /// answers it NotSupported everywhere, so clients fall back to StartNotify.
    public var acquireNotify = true
    /// Whether a rider keeps riding while no client listens (the gateway restarting or
    /// frozen): the machine's own counters run on, and the first frame after a silence
    /// covers the time since the last frame. Off, a machine counts only what it sends. A
    /// machine asleep has no rider either way.
    public var ridersRideOn = false
    /// Whether the streaming machines notify evenly spread over one frame interval (machine i
    /// of n at i/n of it, on one clock shared by every link), as a bench's bare reader's timers
    /// are. Off, each machine's clock starts when its link does, so frames of machines that
    /// connected close together bunch, and a reader's wake-ups per frame vary from run to run.
    public var spreadPhases = false

    public init(
        adapters: [String] = ["hci0"], machines: [MachineSpec] = [], timing: SimulatorTiming = SimulatorTiming(),
        faults: [Fault] = [], verbose: Bool = false
    ) {
        self.adapters = adapters
        self.machines = machines
        self.timing = timing
        self.faults = faults
        self.verbose = verbose
    }

    /// A gym: bikes, rowers, look-alikes without 0xFE01 and other makers' FTMS bikes, spread
    /// round-robin over the adapters (none without an adapter; with `visibleOnAll` each is
    /// also heard by every other adapter, as in a small room), named and addressed by kind
    /// and number:
    /// `SF-Bike-0001` at `C0:5F:00:00:00:01`, `SF-Rower-0001` at `C0:5F:00:00:00:02`, …,
    /// name-only `SF-Bike-9001` at `C0:5F:00:00:01:01`, FTMS `FTMS-Bike-01` at `C0:5F:00:00:02:01`.
    public static func gym(
        adapters: Int = 1, bikes: Int = 1, rowers: Int = 0, nameOnly: Int = 0, genericFTMS: Int = 0,
        rate: Double = 1, seed: UInt64 = 1, known: Bool = false, resistanceForm: MachineSpec.ResistanceForm = .uint8,
        visibleOnAll: Bool = false
    ) -> SimulatorConfiguration {
        let adapterNames = (0..<max(adapters, 0)).map { "hci\($0)" }
        guard !adapterNames.isEmpty else { return SimulatorConfiguration(adapters: [], machines: []) }
        var machines: [MachineSpec] = []
        func add(_ name: String, _ group: UInt8, _ number: Int, _ kind: MachineSpec.Kind) {
            let index = machines.count
            let address = "C0:5F:00:00:" + hexByte(group).uppercased() + ":" + hexByte(UInt8(truncatingIfNeeded: number)).uppercased()
            let adapter = adapterNames[index % adapterNames.count]
            var spec = MachineSpec(
                name: name, address: address, kind: kind, adapter: adapter,
                seed: SplitMix64.derive(seed, index), streamRate: kind.hasGatt ? rate : 0,
                resistanceForm: resistanceForm, known: known, rssi: -55 - 4 * (index % 8))
            if visibleOnAll { spec.alsoSeenBy = adapterNames.filter { $0 != adapter } }
            machines.append(spec)
        }
        var number = 0
        for bike in 1...max(bikes, 1) where bikes > 0 {
            number += 1
            add("SF-Bike-" + pad(bike, 4), 0x00, number, .bike)
        }
        for rower in 1...max(rowers, 1) where rowers > 0 {
            number += 1
            add("SF-Rower-" + pad(rower, 4), 0x00, number, .rower)
        }
        for lookAlike in 1...max(nameOnly, 1) where nameOnly > 0 {
            add("SF-Bike-" + pad(9000 + lookAlike, 4), 0x01, lookAlike, .nameOnly)
        }
        for other in 1...max(genericFTMS, 1) where genericFTMS > 0 {
            add("FTMS-Bike-" + pad(other, 2), 0x02, other, .genericFTMS)
        }
        return SimulatorConfiguration(adapters: adapterNames, machines: machines)
    }

    /// Puts `ride` on the `number`-th machine of `kind` (from 1, in ``machines`` order), which
    /// then streams at `rate`, or at the recording's own rate when `rate` is nil.
    public mutating func ride(_ ride: RecordedRide, onMachine number: Int, of kind: MachineSpec.Kind, rate: Double? = nil) throws(SimulatorError) {
        let candidates = machines.indices.filter { machines[$0].kind == kind }
        guard candidates.indices.contains(number - 1) else {
            throw SimulatorError("no \(kind.rawValue) machine number \(number) to ride (there are \(candidates.count))")
        }
        guard kind.dataCharacteristic == ride.characteristic else {
            throw SimulatorError("a \(kind.rawValue) machine cannot ride \(ride.characteristic.jsonName) notifications")
        }
        machines[candidates[number - 1]].ride = ride
        machines[candidates[number - 1]].streamRate = rate ?? ride.recordedRate
    }
}

private func pad(_ number: Int, _ width: Int) -> String {
    let digits = String(number)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
}
