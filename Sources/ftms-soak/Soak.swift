import BlueZ
import BlueZTesting
import DBus
import FTMS
import Foundation
import RetryTiming

/// `ftms-soak`: several simulated machines kept connected for a long time through every
/// fault we can inject, watching the process for growth (the long soak).
///
/// Machines stream at `--rate` Hz; every few seconds one link is dropped and one Control
/// Point command is sent. Resident memory, open file descriptors, calls awaiting a reply
/// and the client's waiters/listeners are sampled throughout. After a warm-up quarter, any
/// steady growth fails the run (exit 1), with a table of the samples either way.
///
///   ftms-soak [--seconds 300] [--machines 8] [--rate 4]
@main
struct Soak {
    struct Options {
        var seconds = 60.0
        var machines = 8
        var rate = 4.0

        init(_ arguments: [String]) throws {
            var iterator = arguments.dropFirst().makeIterator()
            while let flag = iterator.next() {
                guard let text = iterator.next(), let value = Double(text), value > 0 else {
                    throw SoakFailure("\(flag) needs a positive number")
                }
                switch flag {
                case "--seconds": seconds = value
                case "--machines": machines = min(Int(value), 40)
                case "--rate": rate = min(value, 50)
                default: throw SoakFailure("unknown option \(flag)")
                }
            }
        }
    }

    static func main() async {
        do {
            let options = try Options(CommandLine.arguments)
            let verdict = try await run(options)
            print(verdict.report)
            exit(verdict.passed ? 0 : 1)
        } catch {
            FileHandle.standardError.write(Data("ftms-soak: \(error)\n".utf8))
            exit(1)
        }
    }

    static func run(_ options: Options) async throws -> SoakVerdict {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let fake = try await FakeBlueZ(bus: bus)
        defer { fake.stop() }
        try await fake.addAdapter("hci0")
        var machines: [(name: String, address: String, kind: String, data: String)] = []
        for index in 0..<options.machines {
            let kind = index.isMultiple(of: 2) ? "bike" : "rower"
            let name = String(format: kind == "bike" ? "SF-Bike-%04d" : "SF-Rower-%04d", index + 1)
            let address = String(format: "C0:11:22:33:44:%02X", index + 1)
            let device = try await fake.addMachine(address: address, name: name, kind: kind)
            let paths = try await fake.mock("GetGattPaths", [.string(device)]).first?.stringDictionary ?? [:]
            machines.append((name, address, kind, paths[kind == "bike" ? "2ad2" : "2ad1"]?.string ?? ""))
        }

        let connection = try await DBusConnection.connect(address: bus.address)
        defer { connection.close() }
        let client = BlueZClient(connection: connection)
        try await client.start()
        let counters = SoakCounters()
        let forms = ResistanceFormMemory()
        var supervisors: [MachineSupervisor] = []
        var tasks: [Task<Void, Never>] = []
        for machine in machines {
            let supervisor = MachineSupervisor(
                client: client, target: MachineTarget(machine.name), resistanceForms: forms,
                backoff: Backoff(initial: .milliseconds(100), maximum: .seconds(2)))
            supervisors.append(supervisor)
            tasks.append(Task { await supervisor.run() })
            tasks.append(Task {
                for await event in supervisor.events { await counters.record(event) }
            })
        }

        let clock = ContinuousClock()
        let started = clock.now
        let end = started + .seconds(options.seconds)
        let period = Duration.seconds(1 / options.rate)
        var samples: [SoakSample] = []
        var nextSample = started
        var nextDrop = started + .seconds(5)
        var nextCommand = started + .seconds(3)
        var tick = 0
        var random = SystemRandomNumberGenerator()
        while clock.now < end {
            tick += 1
            for (index, machine) in machines.enumerated() {
                var values = FieldValues()
                values.set(.instantaneousPower, raw: Int32(100 + (tick + index) % 200))
                let kind: DataRecord.Kind = machine.kind == "bike" ? .indoorBikeData : .rowerData
                let frame = DataRecord(kind: kind, values: values).encoded()
                // Refused while the machine is between links: a real machine sends nothing then.
                _ = try? await fake.mock("NotifyValue", [.string(machine.data), .string(Hex.string(frame))])
            }
            let now = clock.now
            if now >= nextDrop, let machine = machines.randomElement(using: &random) {
                _ = try? await fake.mock("DisconnectDevice", [.string("hci0"), .string(machine.address)])
                await counters.dropped()
                nextDrop = now + .seconds(5)
            }
            if now >= nextCommand, let supervisor = supervisors.randomElement(using: &random) {
                let level = Double(Int.random(in: 10...240, using: &random)) / 10
                await counters.command(succeeded: (try? await supervisor.send(.resistance(level)))?.succeeded == true)
                nextCommand = now + .seconds(3)
            }
            if now >= nextSample {
                samples.append(await SoakSample.take(at: now - started, connection: connection, client: client, counters: counters))
                nextSample = now + .seconds(max(options.seconds / 30, 1))
            }
            try await Task.sleep(until: now + period)
        }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
        await client.sync()
        let after = await SoakSample.take(at: clock.now - started, connection: connection, client: client, counters: counters)
        var verdict = SoakVerdict(samples: samples, afterStop: after, machines: options.machines)
        verdict.drops = await counters.drops
        verdict.commands = (await counters.commandsSucceeded, await counters.commandsFailed)
        return verdict
    }
}

struct SoakFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
