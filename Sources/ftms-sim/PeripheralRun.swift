import ArgumentParser
import Dispatch
import Foundation
import Simulator
import ProcessOutput

/// `ftms-sim --peripheral`: one real machine on a real bluetoothd (``BlueZPeripheral``).
extension SimulateCommand {
    /// The flags that make sense with --peripheral, checked before anything runs.
    func validatePeripheral() throws {
        guard let adapter, adapter.hasPrefix("hci"), Int(adapter.dropFirst(3)) != nil else {
            throw ValidationError("--peripheral needs --adapter hciN")
        }
        _ = try peripheralMachine()
        if let rate { guard rate.isFinite, (0...100).contains(rate) else { throw ValidationError("--rate must be between 0 and 100 Hz") } }
        guard MachineSpec.ResistanceForm(rawValue: resistanceForm) != nil else {
            throw ValidationError("--resistance-form must be uint8, sint16 or any")
        }
        guard rides.count <= 1 else { throw ValidationError("--peripheral rides at most one capture") }
        guard faults.isEmpty, !known, !noAcquireNotify else {
            throw ValidationError("--fault, --known and --no-acquire-notify are the simulated bluetoothd's; real bluetoothd decides those")
        }
    }

    /// `--machine KIND:NAME`, an SF bike or rower.
    func peripheralMachine() throws -> MachineSpec {
        let text = machine ?? "bike:SF-Bike-0001"
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2, let kind = MachineSpec.Kind(rawValue: parts[0]), kind.hasGatt,
            !parts[1].isEmpty, parts[1].utf8.count <= 29
        else {
            throw ValidationError("--machine '\(text)' is not KIND:NAME with KIND bike, rower or ftms and a name of 1-29 bytes")
        }
        var spec = MachineSpec(
            name: parts[1], address: "00:00:00:00:00:00", kind: kind, seed: seed,
            resistanceForm: MachineSpec.ResistanceForm(rawValue: resistanceForm) ?? .uint8)
        spec.adapter = adapter ?? "hci0"
        return spec
    }

    /// Registers, prints `ready NAME on hciN`, runs until SIGTERM/SIGINT (0) or the bus is lost (1).
    func servePeripheral() async -> Int32 {
        let address = bus ?? BlueZSimulator.systemBusAddress(environment: ProcessInfo.processInfo.environment)
        let configuration: PeripheralConfiguration
        do {
            var spec = try peripheralMachine()
            var frameRate = rate ?? 1
            if let argument = try loadRides().first {
                guard argument.kind == spec.kind else {
                    LineOutput.write("ftms-sim: --ride \(argument.kind.rawValue) does not fit a \(spec.kind.rawValue) machine", to: 2)
                    return 2
                }
                spec.ride = argument.ride
                frameRate = rate ?? argument.ride.recordedRate
            }
            configuration = PeripheralConfiguration(machine: spec, adapter: spec.adapter, rate: frameRate)
        } catch {
            LineOutput.write("ftms-sim: \(error)", to: 2)
            return 1
        }
        var withVerbosity = configuration
        withVerbosity.verbose = verbose
        let peripheral = BlueZPeripheral(configuration: withVerbosity, busAddress: address, log: EventLog { LineOutput.write($0, to: 2) })
        let watchers = [SIGTERM, SIGINT].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number)
            source.setEventHandler { Task { await peripheral.stop() } }
            source.resume()
            return source
        }
        defer { watchers.forEach { $0.cancel() } }
        do {
            try await peripheral.start()
        } catch {
            LineOutput.write("ftms-sim: \(error)", to: 2)
            await peripheral.stop()
            return 1
        }
        LineOutput.write("ready \(configuration.machine.name) on \(configuration.adapter)", to: 1)
        switch await peripheral.finished() {
        case .stopped: return 0
        case .busLost: return 1
        }
    }
}
