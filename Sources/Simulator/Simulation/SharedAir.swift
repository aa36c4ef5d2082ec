import Synchronization

/// The room several simulated bluetoothds share: each machine in it is one rider on one
/// machine, however many gateways' adapters hear it.
///
/// Each ``BlueZSimulator`` given the same air (one per bus: a gateway's own dbus-daemon and
/// bluetoothd) takes its machines' links, frames and counters from here, so a machine holds
/// at most ``maxCentrals`` links at once across every bus (real FTMS machines take one), stops
/// advertising to the other centrals while it is full, and its counters (distance, energy,
/// elapsed) run on from one central to the next, as a rider keeps riding. The simulators call
/// it from their own actors, synchronously, so a Connect decides against the air in the same
/// step that it answers: the state is behind a lock rather than in another actor.
public final class SharedAir: Sendable {
    /// How many centrals a machine takes at once: 1, as FTMS machines do.
    public let maxCentrals: Int
    private let machines = Mutex<[String: Machine]>([:])

    private struct Machine {
        var source: any MachineDataSource
        /// Who holds a link: ``Central`` identities, one per adapter per bus.
        var holders: Set<String> = []
        /// When the last frame went out, to whichever central.
        var lastFrameAt: ContinuousClock.Instant?
    }

    public init(maxCentrals: Int = 1) {
        self.maxCentrals = max(maxCentrals, 1)
    }

    /// The machine is in the air; the first simulator that hears it seeds its rider.
    func enter(_ spec: MachineSpec) {
        machines.withLock { machines in
            if machines[spec.address] == nil { machines[spec.address] = Machine(source: spec.dataSource()) }
        }
    }

    /// Whether `central` may connect to the machine at `address`: it holds it already, or the
    /// machine has a free link. A full machine does not advertise as connectable to the others.
    func isOpen(_ address: String, to central: String) -> Bool {
        machines.withLock { machines in
            guard let machine = machines[address] else { return true }
            return machine.holders.contains(central) || machine.holders.count < maxCentrals
        }
    }

    /// Takes a link for `central`; false when the machine is full (another central got there
    /// first between Connect and the link coming up).
    func take(_ address: String, for central: String) -> Bool {
        machines.withLock { machines in
            guard var machine = machines[address] else { return true }
            guard machine.holders.contains(central) || machine.holders.count < maxCentrals else { return false }
            machine.holders.insert(central)
            machines[address] = machine
            return true
        }
    }

    /// The link of `central` is gone (disconnect, link loss, power off, its bus went away):
    /// the machine advertises again to every adapter.
    func release(_ address: String, by central: String) {
        machines.withLock { machines in _ = machines[address]?.holders.remove(central) }
    }

    /// The centrals holding the machine at `address`, sorted.
    public func holders(of address: String) -> [String] {
        machines.withLock { $0[address]?.holders.sorted() ?? [] }
    }

    /// The machine's next frame, `interval` after its previous one to any central. With
    /// `ridersRideOn`, a frame after a silence covers it (at most an hour), as a rider rode on
    /// while no central listened. Nil when the machine is not in the air or its source ended.
    func nextFrame(_ address: String, after interval: Duration, ridersRideOn: Bool, now: ContinuousClock.Instant) -> [UInt8]? {
        machines.withLock { machines in
            guard var machine = machines[address] else { return nil }
            var interval = interval
            if ridersRideOn, let last = machine.lastFrameAt, now - last > interval * 2 {
                interval = min(now - last, .seconds(3600))
            }
            machine.lastFrameAt = now
            let frame = machine.source.nextFrame(after: interval)
            machines[address] = machine
            return frame
        }
    }

    /// A Control Point change reaches the one machine, whichever central wrote it.
    func apply(_ event: MachineEvent, to address: String) {
        machines.withLock { machines in machines[address]?.source.apply(event) }
    }
}
