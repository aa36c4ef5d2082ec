import BlueZTesting
import Foundation
import JSON
import MQTTTesting
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The floor on the real stack (issue 37): two `ftms-bridged`, each on its own private bus, hear
/// one simulated bike through the simulator's shared air (`--also-bus`, a machine takes one
/// central at a time), and meet on a private mosquitto. The bike's home gateway (floor-1, whose
/// allow list names it) dies mid-ride or hands it over; the neighbour (floor-2) takes it and
/// carries on the same session. Each case prints the neighbour's first sample after the home's
/// link is gone (or after `handover`).
@Suite("The floor: two gateways, one bike", .serialized)
struct FloorProcessTests {
    /// A wait that ran out, with what the daemons said.
    struct Stuck: Error, CustomStringConvertible {
        var description: String
    }

    final class Gateway: @unchecked Sendable {
        let name: String
        let directory: TemporaryDirectory
        let daemon: ChildProcess
        var control: String { directory.file("control.sock") }
        var metrics: String { directory.file("metrics.sock") }

        /// Both gateways run on one host, whose machine id makes their device ids (and so their
        /// default MQTT client ids) the same: each gets its own client id, as two boxes have.
        init(_ name: String, bus: PrivateBus, broker: PrivateBroker, allow: [String]) throws {
            self.name = name
            directory = try TemporaryDirectory(prefix: "ftms-floor-\(name)")
            let config = directory.file("config.toml")
            try Data(
                """
                [machines]
                allow = [\(allow.map { "\"\($0)\"" }.joined(separator: ", "))]
                [sessions]
                checkpoint_interval = 1
                [state]
                directory = "\(directory.file("state"))"
                [metrics_socket]
                path = "\(directory.file("metrics.sock"))"
                [control_socket]
                path = "\(directory.file("control.sock"))"
                [prometheus]
                enabled = false
                [bluetooth]
                bus_address = "\(bus.address)"
                [mqtt]
                enabled = true
                broker = "\(broker.url)"
                username = "\(broker.username)"
                password_file = "\(broker.passwordFile)"
                gateway = "\(name)"
                client_id = "gw-\(name)"
                home_assistant = false
                [fleet]
                enabled = true
                heartbeat = 1
                lease = 4

                """.utf8
            ).write(to: URL(fileURLWithPath: config))
            daemon = try ChildProcess(ChildProcess.builtProduct("ftms-bridged"), ["--config", config], logDirectory: directory.path, name: name)
        }

        /// `status --json`, read; nil while the daemon does not answer.
        func status() async -> JSONValue? {
            guard let result = try? await ProcessRunner.run(["status", "--json", "--control-socket", control], timeout: .seconds(20)),
                  result.status == 0 else { return nil }
            return try? JSONReader.read(result.stdout)
        }

        /// The bike as this gateway's status has it: its state and open session.
        func bike() async -> (state: String?, session: String?) {
            let machine = await status()?["machines"]?.array?.first { $0["name"]?.string == "SF-Bike-0001" }
            return (machine?["state"]?.string, machine?["session_id"]?.string)
        }

        /// `watch` on this gateway's metrics socket, samples only.
        func watchSamples() throws -> ChildProcess {
            try ChildProcess(
                ProcessRunner.binary.path, ["watch", "--json", "--socket", metrics, "--type", "sample"],
                logDirectory: directory.path, name: "watch-\(name)")
        }

        func stop() async {
            daemon.signal(SIGTERM)
            _ = await daemon.wait(within: .seconds(30))
            daemon.stop()
        }
    }

    /// Two gateways in one shared air: floor-1 on `home` hears the bike 15 dB better than
    /// floor-2 on `neighbour`; floor-1 starts first and holds the bike with a session open.
    final class TwoGateways: @unchecked Sendable {
        let broker: PrivateBroker
        let home: PrivateBus
        let neighbour: PrivateBus
        let sim: SimulatedBlueZ
        let first: Gateway
        let second: Gateway
        let session: String

        init() async throws {
            broker = try await PrivateBroker()
            home = try PrivateBus()
            neighbour = try PrivateBus()
            sim = try await SimulatedBlueZ(
                bus: home,
                arguments: [
                    "--bikes", "1", "--rate", "4", "--seed", "7", "--also-bus", neighbour.address, "--rssi-shift=0", "--rssi-shift=-15",
                    "--max-centrals", "1",
                ])
            first = try Gateway("floor-1", bus: home, broker: broker, allow: ["SF-Bike-0001"])
            let first = first
            var session: String?
            try await waitUntil("floor-1 to ride the bike", timeout: .seconds(90)) {
                let bike = await first.bike()
                session = bike.session
                return bike.state == "ready" && bike.session != nil
            }
            self.session = session ?? ""
            second = try Gateway("floor-2", bus: neighbour, broker: broker, allow: [])
            let second = second
            // floor-2 has seen floor-1's claim, and floor-1's checkpoints reach the broker each second.
            do {
                try await waitUntil("floor-2 to see floor-1 holding the bike", timeout: .seconds(60)) {
                    await second.status()?["floor"]?["machines"]?.array?.contains { $0["holder"]?.string == "floor-1" } == true
                }
            } catch {
                let status = await second.status().map { JSONWriter.text($0) } ?? "no status"
                throw Stuck(description: "\(error)\nfloor-2 status: \(status)\nfloor-1: \(first.daemon.stderr.suffix(3000))\nfloor-2: \(second.daemon.stderr.suffix(3000))")
            }
            try await Task.sleep(for: .seconds(2))
        }

        /// The instant the neighbour's `watch` printed its first sample, polled every 10 ms.
        static func firstSample(_ watch: ChildProcess, after start: ContinuousClock.Instant) async throws -> Duration {
            try await waitUntil("the neighbour's first sample", timeout: .seconds(60)) { watch.stdout.contains(#""type":"sample""#) }
            return ContinuousClock.now - start
        }

        func stop() async {
            await second.stop()
            await first.stop()
            sim.stop()
            home.stop()
            neighbour.stop()
            broker.stop()
        }
    }

    /// The home gateway dies mid-ride (its controller off, then SIGKILL: a power cut as the others
    /// see it): the neighbour takes the bike and carries on the same session.
    @Test func aNeighbourCarriesOnTheRideOfAGatewayThatDies() async throws {
        let floor = try await TwoGateways()
        let watch = try floor.second.watchSamples()
        try await waitUntil("watch to read the stream") { watch.stdout.contains(#""type":"hello""#) }
        #expect(!watch.stdout.contains(#""type":"sample""#), "floor-2 streamed the bike while floor-1 held it")

        _ = try await floor.sim.mock("SetPowered", [.string("hci0"), .bool(false)])
        let linkGone = ContinuousClock.now
        floor.first.daemon.signal(SIGKILL)
        let delay = try await TwoGateways.firstSample(watch, after: linkGone)
        print("floor: neighbour's first sample \(delay) after the home gateway's link went down")

        let second = floor.second
        try await waitUntil("floor-2 to hold the bike with a session", timeout: .seconds(30)) { await second.bike().session != nil }
        let carried = await second.bike().session
        let report = await second.status()?["floor"]
        watch.stop()
        await floor.stop()
        #expect(carried == floor.session, "the neighbour started a new session instead of carrying on \(floor.session)")
        #expect(report?["counters"]?["adoptions"]?.integer == 1)
        #expect(report?["machines"]?.array?.first?["adopted_from"]?.string == "floor-1")
        #expect(delay < .seconds(15))
    }

    /// A planned handover: the neighbour takes the bike within seconds, the same session.
    @Test func aHandoverMovesTheRideToTheNeighbour() async throws {
        let floor = try await TwoGateways()
        let watch = try floor.second.watchSamples()
        try await waitUntil("watch to read the stream") { watch.stdout.contains(#""type":"hello""#) }

        let start = ContinuousClock.now
        let answer = try await ProcessRunner.run(["handover", "--json", "--control-socket", floor.first.control], timeout: .seconds(30))
        let delay = try await TwoGateways.firstSample(watch, after: start)
        print("floor: neighbour's first sample \(delay) after handover")

        let second = floor.second
        try await waitUntil("floor-2 to hold the bike with a session", timeout: .seconds(30)) { await second.bike().session != nil }
        let carried = await second.bike().session
        let first = floor.first
        // floor-1 learns its session is carried on: handed over, never uploaded from it.
        try await waitUntil("floor-1 to mark its session handed over", timeout: .seconds(30)) {
            await first.status()?["floor"]?["counters"]?["handed_over"]?.array?.isEmpty == false
        }
        let firstBike = await first.bike()
        watch.stop()
        await floor.stop()
        #expect(answer.status == 0, "\(answer.stderr)")
        #expect(answer.stdout.contains("handed_over"), "\(answer.stdout)")
        #expect(carried == floor.session)
        #expect(firstBike.session == nil)
        #expect(delay < .seconds(5))
    }
}
