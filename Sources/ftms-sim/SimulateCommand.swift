import ArgumentParser
import Dispatch
import Foundation
import Simulator

/// The arguments, and the run they describe.
struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ftms-sim",
        abstract: "Simulate BlueZ 5.66 with SolidFocus bikes and rowers in range, on a D-Bus bus.",
        discussion: """
            Owns org.bluez on the bus (DBUS_SYSTEM_BUS_ADDRESS unless --bus is given), prints one \
            ready line on stdout, logs one line per event on stderr, and exits on SIGTERM or SIGINT, \
            or by itself when the bus goes away. Faults: \(Fault.usage). Controls: org.bluez.Mock on /.
            """
    )

    @Option(help: "The bus address (default: DBUS_SYSTEM_BUS_ADDRESS, else the system bus).")
    var bus: String?

    @Option(help: "Adapters hci0, hci1, …; machines are spread over them. 0: bluetoothd without an adapter.")
    var adapters = 1

    @Option(help: "SF-Bike machines.")
    var bikes = 1

    @Option(help: "SF-Rower machines.")
    var rowers = 0

    @Option(help: "Devices named like machines but without the 0xFE01 service.")
    var nameOnly = 0

    @Option(help: "Other makers' FTMS bikes, advertising 0x1826 only.")
    var genericFtms = 0

    @Option(help: "Data frames per second per machine while a client is subscribed (0: none).")
    var rate = 1.0

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

    func validate() throws {
        guard (0...16).contains(adapters) else { throw ValidationError("--adapters must be between 0 and 16") }
        guard adapters > 0 || bikes + rowers + nameOnly + genericFtms == 0 else {
            throw ValidationError("machines need an adapter: with --adapters 0 give --bikes 0 too")
        }
        for (flag, count) in [("--bikes", bikes), ("--rowers", rowers), ("--name-only", nameOnly), ("--generic-ftms", genericFtms)] {
            guard (0...255).contains(count) else { throw ValidationError("\(flag) must be between 0 and 255") }
        }
        guard bikes + rowers <= 255 else { throw ValidationError("at most 255 bikes and rowers together") }
        guard rate.isFinite, (0...100).contains(rate) else { throw ValidationError("--rate must be between 0 and 100 Hz") }
        guard MachineSpec.ResistanceForm(rawValue: resistanceForm) != nil else {
            throw ValidationError("--resistance-form must be uint8, sint16 or any")
        }
        guard (0...60_000).contains(connectMs), (0...60_000).contains(resolveMs) else {
            throw ValidationError("--connect-ms and --resolve-ms must be between 0 and 60000")
        }
        _ = try parsedFaults()
    }

    private func parsedFaults() throws -> [Fault] {
        do {
            return try faults.map { (text: String) throws(SimulatorError) -> Fault in try Fault(parsing: text) }
        } catch {
            throw ValidationError(error.description)
        }
    }

    func configuration() throws -> SimulatorConfiguration {
        var configuration = SimulatorConfiguration.gym(
            adapters: adapters, bikes: bikes, rowers: rowers, nameOnly: nameOnly, genericFTMS: genericFtms, rate: rate,
            seed: seed, known: known, resistanceForm: MachineSpec.ResistanceForm(rawValue: resistanceForm) ?? .uint8)
        configuration.timing.connect = .milliseconds(connectMs)
        configuration.timing.resolve = .milliseconds(resolveMs)
        configuration.faults = try parsedFaults()
        configuration.verbose = verbose
        return configuration
    }

    /// Runs until stopped; the exit status: 0 stopped by a signal, 1 failed or lost the bus.
    func simulate() async -> Int32 {
        let address = bus ?? BlueZSimulator.systemBusAddress(environment: ProcessInfo.processInfo.environment)
        let simulator: BlueZSimulator
        do {
            simulator = BlueZSimulator(
                configuration: try configuration(), busAddress: address, log: EventLog { writeLine($0, to: 2) })
        } catch {
            writeLine("ftms-sim: \(error)", to: 2)
            return 2
        }
        let watchers = [SIGTERM, SIGINT].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number)
            source.setEventHandler { Task { await simulator.stop() } }
            source.resume()
            return source
        }
        defer { watchers.forEach { $0.cancel() } }
        do {
            let machines = try await simulator.start()
            writeLine((["ready"] + machines.map { "\($0.name)=\($0.address)" }).joined(separator: " "), to: 1)
        } catch {
            writeLine("ftms-sim: \(error)", to: 2)
            await simulator.stop()
            return 1
        }
        switch await simulator.finished() {
        case .stopped: return 0
        case .busLost: return 1
        }
    }
}
