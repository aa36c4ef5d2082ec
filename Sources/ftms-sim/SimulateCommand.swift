import ArgumentParser
import Dispatch
import Foundation
import Simulator
import ProcessOutput

/// The arguments, and the run they describe.
struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ftms-sim",
        abstract: "Simulate BlueZ 5.66 with SolidFocus bikes and rowers in range, on a D-Bus bus.",
        discussion: """
            Owns org.bluez on the bus (DBUS_SYSTEM_BUS_ADDRESS unless --bus is given), prints one \
            ready line on stdout, logs one line per event on stderr, and exits on SIGTERM or SIGINT, \
            or by itself when the bus goes away. Faults: \(Fault.usage). Controls: org.bluez.Mock on /. \
            Machines ride a seeded rider model, or a recorded capture with --ride. \
            With --peripheral it is instead one real machine on a real bluetoothd: a GATT application \
            and an advertisement registered on --adapter of the system bus (docs/simulator.md).
            """
    )

    @Option(help: "The bus address (default: DBUS_SYSTEM_BUS_ADDRESS, else the system bus).")
    var bus: String?

    @Option(
        name: .customLong("also-bus"),
        help: "A further gateway's bus (repeatable): its own simulated bluetoothd with the same adapters and machines, all in one shared air, where a machine takes --max-centrals links at once.")
    var alsoBuses: [String] = []

    @Option(
        name: .customLong("rssi-shift"),
        help: "dB added to every machine's signal on one bus (repeatable, in bus order: --bus first, then each --also-bus), so near and far gateways exist.")
    var rssiShifts: [Int] = []

    @Option(help: "With --also-bus: how many centrals a machine takes at once (FTMS machines: 1).")
    var maxCentrals = 1

    @Option(help: "Adapters hci0, hci1, …; machines are spread over them. 0: bluetoothd without an adapter.")
    var adapters = 1

    @Option(help: "Which adapters hear each machine: all (as BlueZ, one Device1 per adapter; the default with more than one adapter) or one (round-robin).")
    var visibleOn: String?

    @Option(help: "SF-Bike machines.")
    var bikes = 1

    @Option(help: "SF-Rower machines.")
    var rowers = 0

    @Option(help: "Devices named like machines but without the 0xFE01 service.")
    var nameOnly = 0

    @Option(help: "Other makers' FTMS bikes, advertising 0x1826 only.")
    var genericFtms = 0

    @Option(help: "Data frames per second per machine while a client is subscribed (0: none; default 1, or a ridden capture's own rate).")
    var rate: Double?

    @Option(
        name: .customLong("ride"),
        help: "KIND=PATH (repeatable): the Nth --ride of a kind (bike, rower, ftms) drives the Nth machine of that kind with a capture's frames.")
    var rides: [String] = []

    @Flag(help: "Ridden captures start again after their last frame instead of ending.")
    var rideLoop = false

    @Flag(help: "Machines notify evenly spread over one frame interval (machine i of n at i/n of it), not each from its link's start: a bench's timing, the same every run.")
    var spreadPhases = false

    @Flag(help: "Riders ride on while no client is connected (a gateway down): the first frame of a new link counts the time since the last one.")
    var rideOn = false

    @Option(help: "Seeds the riders, so a run can be repeated exactly.")
    var seed: UInt64 = 1

    @Flag(help: "Machines were connected before: on the bus from the start, with their GATT cache.")
    var known = false

    @Option(help: "Set Target Resistance Level form the machines accept: uint8, sint16 or any.")
    var resistanceForm = "uint8"

    @Option(help: "Milliseconds from Connect() to the link being up.")
    var connectMs = 30

    @Option(help: "Milliseconds from the link being up to ServicesResolved.")
    var resolveMs = 40

    @Option(name: .customLong("fault"), help: "A failure to inject (repeatable): \(Fault.usage).")
    var faults: [String] = []

    @Flag(help: "Log every call and every frame, not only state changes.")
    var verbose = false

    @Flag(help: "Refuse AcquireNotify (NotSupported), so clients take notifications through StartNotify signals.")
    var noAcquireNotify = false

    @Flag(help: "Be one real machine through bluetoothd's GattManager1 and LEAdvertisingManager1 (with --adapter and --machine) instead of simulating bluetoothd.")
    var peripheral = false

    @Option(help: "With --peripheral: the adapter that serves the machine, as hci1.")
    var adapter: String?

    @Option(help: "With --peripheral: KIND:NAME, as bike:SF-Bike-0001 or rower:SF-Rower-0001 (default bike:SF-Bike-0001).")
    var machine: String?

    func validate() throws {
        if peripheral {
            try validatePeripheral()
            return
        }
        guard adapter == nil, machine == nil else { throw ValidationError("--adapter and --machine need --peripheral") }
        guard rssiShifts.count <= alsoBuses.count + 1, rssiShifts.allSatisfy({ (-100...100).contains($0) }) else {
            throw ValidationError("--rssi-shift: at most one per bus, between -100 and 100 dB")
        }
        guard (1...16).contains(maxCentrals) else { throw ValidationError("--max-centrals must be between 1 and 16") }
        guard (0...16).contains(adapters) else { throw ValidationError("--adapters must be between 0 and 16") }
        guard visibleOn == nil || visibleOn == "all" || visibleOn == "one" else {
            throw ValidationError("--visible-on must be all or one")
        }
        guard adapters > 0 || bikes + rowers + nameOnly + genericFtms == 0 else {
            throw ValidationError("machines need an adapter: with --adapters 0 give --bikes 0 too")
        }
        for (flag, count) in [("--bikes", bikes), ("--rowers", rowers), ("--name-only", nameOnly), ("--generic-ftms", genericFtms)] {
            guard (0...255).contains(count) else { throw ValidationError("\(flag) must be between 0 and 255") }
        }
        guard bikes + rowers <= 255 else { throw ValidationError("at most 255 bikes and rowers together") }
        if let rate { guard rate.isFinite, (0...100).contains(rate) else { throw ValidationError("--rate must be between 0 and 100 Hz") } }
        guard MachineSpec.ResistanceForm(rawValue: resistanceForm) != nil else {
            throw ValidationError("--resistance-form must be uint8, sint16 or any")
        }
        guard (0...60_000).contains(connectMs), (0...60_000).contains(resolveMs) else {
            throw ValidationError("--connect-ms and --resolve-ms must be between 0 and 60000")
        }
        _ = try parsedFaults()
        let machines: [MachineSpec.Kind: (flag: String, count: Int)] =
            [.bike: ("--bikes", bikes), .rower: ("--rowers", rowers), .genericFTMS: ("--generic-ftms", genericFtms)]
        let counts = try parsedRides().reduce(into: [MachineSpec.Kind: Int]()) { $0[$1.kind, default: 0] += 1 }
        for (kind, count) in counts.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            guard let machine = machines[kind], count > machine.count else { continue }
            throw ValidationError("--ride \(kind.rawValue) given \(count) time(s) but \(machine.flag) is \(machine.count)")
        }
    }

    private func parsedRides() throws -> [RideArgument] {
        do {
            return try rides.map { (text: String) throws(SimulatorError) -> RideArgument in try RideArgument(parsing: text) }
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// The `--ride` captures, read and checked: the one step that reads files, so a bad one
    /// ends the run (status 1) before the bus is touched.
    func loadRides() throws -> [(kind: MachineSpec.Kind, ride: RecordedRide)] {
        try parsedRides().map { (kind: $0.kind, ride: try CaptureRide.load($0, loops: rideLoop)) }
    }

    private func parsedFaults() throws -> [Fault] {
        do {
            return try faults.map { (text: String) throws(SimulatorError) -> Fault in try Fault(parsing: text) }
        } catch {
            throw ValidationError(error.description)
        }
    }

    func configuration(rides: [(kind: MachineSpec.Kind, ride: RecordedRide)] = []) throws -> SimulatorConfiguration {
        var configuration = SimulatorConfiguration.gym(
            adapters: adapters, bikes: bikes, rowers: rowers, nameOnly: nameOnly, genericFTMS: genericFtms, rate: rate ?? 1,
            seed: seed, known: known, resistanceForm: MachineSpec.ResistanceForm(rawValue: resistanceForm) ?? .uint8,
            visibleOnAll: (visibleOn ?? (adapters > 1 ? "all" : "one")) == "all")
        configuration.timing.connect = .milliseconds(connectMs)
        configuration.timing.resolve = .milliseconds(resolveMs)
        configuration.faults = try parsedFaults()
        configuration.verbose = verbose
        configuration.acquireNotify = !noAcquireNotify
        configuration.ridersRideOn = rideOn
        configuration.spreadPhases = spreadPhases
        var ridden: [MachineSpec.Kind: Int] = [:]
        for (kind, ride) in rides {
            let number = (ridden[kind] ?? 0) + 1
            ridden[kind] = number
            try configuration.ride(ride, onMachine: number, of: kind, rate: rate)
        }
        return configuration
    }

    /// Runs until stopped; the exit status: 0 stopped by a signal, 1 failed or lost the bus,
    /// 139 (a segfault's, as a shell shows it) when bluetoothd 5.66 would have crashed.
    func simulate() async -> Int32 {
        if peripheral { return await servePeripheral() }
        let address = bus ?? BlueZSimulator.systemBusAddress(environment: ProcessInfo.processInfo.environment)
        let rides: [(kind: MachineSpec.Kind, ride: RecordedRide)]
        do {
            rides = try loadRides()
        } catch {
            LineOutput.write("ftms-sim: \(error)", to: 2)
            return 1
        }
        let simulators: [BlueZSimulator]
        do {
            let configuration = try configuration(rides: rides)
            logRides(configuration, arguments: try parsedRides())
            // One bus: a room of its own, as always. More: one shared air over them all.
            let air = alsoBuses.isEmpty ? nil : SharedAir(maxCentrals: maxCentrals)
            let buses = [address] + alsoBuses
            simulators = buses.enumerated().map { index, bus in
                var shifted = configuration
                let shift = rssiShifts.indices.contains(index) ? rssiShifts[index] : 0
                for machine in shifted.machines.indices { shifted.machines[machine].rssi += shift }
                let prefix = buses.count > 1 ? "[bus \(index)] " : ""
                return BlueZSimulator(
                    configuration: shifted, busAddress: bus, air: air, log: EventLog { LineOutput.write(prefix + $0, to: 2) })
            }
        } catch {
            LineOutput.write("ftms-sim: \(error)", to: 2)
            return 2
        }
        let watchers = [SIGTERM, SIGINT].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number)
            source.setEventHandler { Task { for simulator in simulators { await simulator.stop() } } }
            source.resume()
            return source
        }
        defer { watchers.forEach { $0.cancel() } }
        do {
            var machines: [MachineSpec] = []
            for simulator in simulators { machines = try await simulator.start() }
            LineOutput.write((["ready"] + machines.map { "\($0.name)=\($0.address)" }).joined(separator: " "), to: 1)
        } catch {
            LineOutput.write("ftms-sim: \(error)", to: 2)
            for simulator in simulators { await simulator.stop() }
            return 1
        }
        // Runs until every bus is gone: one gateway's bus dying frees its machines for the
        // others (the shared air), it does not end the floor.
        var outcomes: [BlueZSimulator.Outcome] = []
        for simulator in simulators { outcomes.append(await simulator.finished()) }
        if outcomes.contains(where: { if case .crashed = $0 { true } else { false } }) { return 139 }
        return outcomes.contains(.stopped) ? 0 : 1
    }

    /// One line per ridden machine, before the simulator's own log starts: which capture, how
    /// many frames, how fast.
    private func logRides(_ configuration: SimulatorConfiguration, arguments: [RideArgument]) {
        // The Nth ride of a kind is on the Nth machine of that kind, so they pair up in order.
        var paths = Dictionary(grouping: arguments, by: \.kind).mapValues { $0.map(\.path)[...] }
        for machine in configuration.machines {
            guard let ride = machine.ride, let path = paths[machine.kind]?.popFirst() else { continue }
            let loop = ride.loops ? ", looping" : ""
            LineOutput.write("0.000 ride \(machine.name): \(path), \(ride.frames.count) frames at \((machine.streamRate * 1000).rounded() / 1000) Hz\(loop)", to: 2)
        }
    }
}
