import BlueZTesting
import Foundation
import JSON
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `ftms-bridge monitor` on a live gateway: a real `ftms-bridged` holds a simulated bike on a
/// private bus, and `monitor` (a real process, given that bus too, so it could connect if it
/// wanted) must stream what the daemon decodes from its metrics socket and make no second
/// GATT client.
@Suite("ftms-bridge monitor through the daemon", .serialized)
struct MonitorThroughDaemonTests {
    final class Gateway: @unchecked Sendable {
        let bus: PrivateBus
        let sim: SimulatedBlueZ
        let directory: TemporaryDirectory
        let daemon: ChildProcess
        var control: String { directory.file("control.sock") }
        var metrics: String { directory.file("metrics.sock") }

        init() async throws {
            bus = try PrivateBus()
            sim = try await SimulatedBlueZ(bus: bus, arguments: ["--bikes", "1", "--known", "--rate", "4", "--seed", "7"])
            directory = try TemporaryDirectory(prefix: "ftms-monitor-daemon")
            let config = directory.file("config.toml")
            try Data(
                """
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

                """.utf8
            ).write(to: URL(fileURLWithPath: config))
            daemon = try ChildProcess(ChildProcess.builtProduct("ftms-bridged"), ["--config", config], logDirectory: directory.path, name: "daemon")
            // The daemon holds the bike once it has acquired its data characteristic.
            let control = control
            try await waitUntil("the daemon to hold SF-Bike-0001", timeout: .seconds(60)) {
                let status = try? await ProcessRunner.run(["status", "--json", "--control-socket", control], timeout: .seconds(20))
                return status?.stdout.contains(#""state":"ready""#) == true
            }
        }

        /// `monitor ARGUMENTS` with the gateway's sockets, and its bus in the environment.
        func monitor(_ arguments: [String]) async throws -> ProcessRunner.Result {
            try await ProcessRunner.run(
                ["monitor"] + arguments + ["--control-socket", control, "--metrics-socket", metrics],
                environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address], timeout: .seconds(60))
        }

        /// The bus clients that asked BlueZ for notifications, either way.
        var notifyClients: Set<String> {
            Set(sim.clients(calling: "AcquireNotify") + sim.clients(calling: "StartNotify"))
        }

        func stop() async {
            daemon.signal(SIGTERM)
            _ = await daemon.wait(within: .seconds(30))
            daemon.stop()
            sim.stop()
            bus.stop()
        }
    }

    /// The daemon's samples, one JSON object per frame as the direct path prints them (the
    /// session's figures left out), and no AcquireNotify or StartNotify but the daemon's.
    @Test func streamsTheDaemonsSamplesAndMakesNoSecondClient() async throws {
        let gateway = try await Gateway()
        let holders = gateway.notifyClients
        #expect(holders.count == 1, "\(gateway.sim.log.suffix(800))")
        // What the daemon publishes, read beside monitor: every line monitor prints must be
        // one of these samples.
        let watch = try ChildProcess(
            ProcessRunner.binary.path, ["watch", "--json", "--socket", gateway.metrics, "--type", "sample"],
            logDirectory: gateway.directory.path, name: "watch")
        try await waitUntil("watch to read the stream") { watch.stdout.contains(#""type":"hello""#) }

        let result = try await gateway.monitor(["SF-Bike-0001", "--json", "--count", "4"])
        try await Task.sleep(for: .milliseconds(500))
        watch.stop()
        // Still only the daemon: monitor never asked BlueZ for notifications or a link.
        let after = gateway.notifyClients
        let connecting = gateway.sim.clients(calling: "Connect")
        let log = gateway.sim.log.suffix(1500)
        await gateway.stop()
        #expect(after == holders, "\(log)")
        #expect(connecting.count == 1, "\(log)")

        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.count == 4, "\(result.stdout)")
        let published = Set(watch.stdout.split(separator: "\n").compactMap { line -> JSONValue? in
            guard let envelope = try? JSONReader.read(String(line)), envelope["type"]?.string == "sample",
                var payload = envelope["payload"]?.object
            else { return nil }
            for key in payload.keys where key.hasPrefix("session_") { payload[key] = nil }
            return .object(payload)
        })
        for line in result.lines {
            let frame = try JSONReader.read(String(line))
            #expect(frame["characteristic"]?.string == "indoor_bike_data", "\(line)")
            #expect(frame.object?.keys.contains { $0.hasPrefix("session_") } == false, "\(line)")
            #expect(published.contains(frame), "monitor printed a sample the daemon did not publish: \(line)")
        }
    }

    /// As a person reads it: the link as the daemon has it, then `name=value` lines; by
    /// address too, in any case; an unknown machine and `--record` are one-line errors.
    @Test func readableLinesAddressesAndErrors() async throws {
        let gateway = try await Gateway()
        let address = try #require(gateway.sim.machines["SF-Bike-0001"])
        let readable = try await gateway.monitor([address.lowercased(), "--count", "2"])
        let unknown = try await gateway.monitor(["SF-Bike-4242", "--scan-timeout", "0.5"])
        let record = try await gateway.monitor(["SF-Bike-0001", "--record", gateway.directory.file("x.ftmscap")])
        let holders = gateway.notifyClients
        let log = gateway.sim.log.suffix(1500)
        await gateway.stop()

        #expect(readable.status == 0, "\(readable.stderr)")
        #expect(readable.lines.count == 3, "\(readable.stdout)")
        #expect(readable.lines.first == "connected to SF-Bike-0001 (\(address)), SolidFocus SF-Bike-M1, bike (through the daemon)")
        for line in readable.lines.dropFirst() {
            #expect(line.hasPrefix("indoor_bike_data instantaneous_speed_kmh="), "\(line)")
            #expect(!line.contains("session_"), "\(line)")
        }
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "ftms-bridge: monitor: the daemon has no machine named or addressed 'SF-Bike-4242' (--direct connects without it)\n")
        #expect(record.status == 1)
        #expect(record.stderr.split(separator: "\n").count == 1, "\(record.stderr)")
        #expect(record.stderr.hasPrefix("ftms-bridge: monitor: --record needs the machine's own frames"), "\(record.stderr)")
        #expect(!FileManager.default.fileExists(atPath: gateway.directory.file("x.ftmscap")))
        #expect(holders.count == 1, "\(log)")
    }
}
