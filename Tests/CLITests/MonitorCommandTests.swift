import BlueZTesting
import TestSupport
import DBus
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `ftms-bridge monitor` as a real process against the dbusmock BlueZ and the simulated one.
@Suite("ftms-bridge monitor", .serialized)
struct MonitorCommandTests {
    /// `monitor` goes through a running daemon when its control socket answers: the direct
    /// path's tests point it at a socket in the bus's own directory where none listens, so a
    /// daemon running on this box is never asked.
    static func noDaemon(_ bus: PrivateBus) -> [String] {
        ["--control-socket", bus.directoryPath + "/no-daemon.sock"]
    }

    @Test func streamsEveryNotifiedFrameDecodedAndInOrder() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let fake = try await FakeBlueZ(bus: bus)
        defer { fake.stop() }
        try await fake.addAdapter("hci0")
        let device = try await fake.addMachine(address: "C0:11:22:33:44:01", name: "SF-Bike-0001", kind: "bike")
        let paths = try await fake.mock("GetGattPaths", [.string(device)]).first?.stringDictionary ?? [:]
        let data = try #require(paths["2ad2"]?.string)
        let frames = ["540895043a00140300270080 03", "4402da020201220100", "0000d007", "0b"]

        // The monitor runs as a process; frames are notified once it has taken control.
        let monitor = Task {
            try await ProcessRunner.run(["monitor", "C0:11:22:33:44:01", "--json", "--count", "\(frames.count)"] + Self.noDaemon(bus),
                                                environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address], timeout: .seconds(40))
        }
        let controlPoint = try #require(paths["2ad9"]?.string)
        let deadline = ContinuousClock.now + .seconds(20)
        while (try await fake.mock("GetWrites", [.string(controlPoint)]).first?.array ?? []).isEmpty {
            guard ContinuousClock.now < deadline else { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        // Request Control comes after the subscriptions, and the link buffers from before
        // them, so frames notified now cannot be lost.
        do {
            for frame in frames {
                try await fake.mock("NotifyValue", [.string(data), .string(frame)])
            }
        } catch {
            let result = try await monitor.value
            Issue.record("the fake refused a notification (\(error)); monitor exited \(result.status): \(result.stderr)")
            return
        }
        let result = try await monitor.value
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines == [
            #"{"characteristic":"indoor_bike_data","uuid":"2ad2","flags":2132,"more_data":false,"instantaneous_speed_kmh":11.73,"instantaneous_cadence_rpm":29,"total_distance_m":788,"instantaneous_power_w":39,"elapsed_time_s":896}"#,
            #"{"characteristic":"indoor_bike_data","uuid":"2ad2","flags":580,"more_data":false,"instantaneous_speed_kmh":7.3,"instantaneous_cadence_rpm":129,"instantaneous_power_w":290,"heart_rate_bpm":0}"#,
            #"{"characteristic":"indoor_bike_data","uuid":"2ad2","flags":0,"more_data":false,"instantaneous_speed_kmh":20}"#,
            #"{"characteristic":"indoor_bike_data","uuid":"2ad2","truncated":true}"#,
        ])
    }

    @Test func keepsStreamingAcrossALinkDrop() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let fake = try await FakeBlueZ(bus: bus)
        defer { fake.stop() }
        try await fake.addAdapter("hci0")
        let device = try await fake.addMachine(address: "C0:11:22:33:44:01", name: "SF-Bike-0001", kind: "bike")
        let paths = try await fake.mock("GetGattPaths", [.string(device)]).first?.stringDictionary ?? [:]
        let data = try #require(paths["2ad2"]?.string)
        let controlPoint = try #require(paths["2ad9"]?.string)
        let scratch = try TemporaryDirectory(prefix: "monitor")
        let recording = scratch.file("recording.ftmscap")
        let monitor = Task {
            try await ProcessRunner.run(["monitor", "SF-Bike-0001", "--json", "--count", "2", "--record", recording] + Self.noDaemon(bus),
                                                environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address], timeout: .seconds(40))
        }
        /// Waits until the monitor has written Request Control `count` times in all.
        func controlTaken(_ count: Int) async throws {
            let deadline = ContinuousClock.now + .seconds(20)
            while (try await fake.mock("GetWrites", [.string(controlPoint)]).first?.array ?? []).count < count {
                guard ContinuousClock.now < deadline else { return }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        try await controlTaken(1)
        try await fake.mock("NotifyValue", [.string(data), .string("0000e803")])
        try await Task.sleep(for: .milliseconds(200))
        try await fake.mock("DisconnectDevice", [.string("hci0"), .string("C0:11:22:33:44:01")])
        try await controlTaken(2)
        try await fake.mock("NotifyValue", [.string(data), .string("0000d007")])
        let result = try await monitor.value
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines == [
            #"{"characteristic":"indoor_bike_data","uuid":"2ad2","flags":0,"more_data":false,"instantaneous_speed_kmh":10}"#,
            #"{"characteristic":"indoor_bike_data","uuid":"2ad2","flags":0,"more_data":false,"instantaneous_speed_kmh":20}"#,
        ])
        #expect(result.stderr.hasPrefix("ftms-bridge: monitor: SF-Bike-0001 (C0:11:22:33:44:01): the link dropped\n"), "\(result.stderr)")

        // The recording holds the machine, both links and both frames, and replays cleanly.
        let lines = try String(contentsOfFile: recording, encoding: .utf8).split(separator: "\n")
        #expect(lines.first?.contains(#""machine":{"name":"SF-Bike-0001","address":"C0:11:22:33:44:01","manufacturer":"SolidFocus","model":"SF-Bike-M1","type":"bike","feature":"#) == true, "\(lines.first ?? "")")
        let events = lines.dropFirst().map { line in
            ["disconnected", "connected", "0000e803", "0000d007"].first { line.contains($0) } ?? String(line)
        }
        #expect(events == ["connected", "0000e803", "disconnected", "connected", "0000d007"])
        let replayed = try await ProcessRunner.run(["replay", "--json", recording], timeout: .seconds(30))
        #expect(replayed.status == 0, "\(replayed.stderr)")
        #expect(replayed.stdout.isEmpty)
    }

    @Test func anUnknownMachineIsAOneLineError() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let fake = try await FakeBlueZ(bus: bus)
        defer { fake.stop() }
        try await fake.addAdapter("hci0")
        let result = try await ProcessRunner.run(["monitor", "SF-Bike-4242", "--scan-timeout", "0.2"] + Self.noDaemon(bus),
                                                         environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        #expect(result.status == 1)
        #expect(result.stderr == "ftms-bridge: monitor: no machine named or addressed 'SF-Bike-4242' is known to BlueZ\n")
    }

    /// Ended by `--count`, SIGINT or SIGTERM, monitor gives its acquired sockets back before it
    /// disconnects and leaves the bus, so bluetoothd 5.66 (the simulator's `notify-uaf`) comes
    /// through; a signal still ends the process as that signal (130, 143 in a shell).
    @Test(arguments: [0, SIGINT, SIGTERM])
    func leavesBluetoothdWholeHoweverItEnds(signal: Int32) async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let sim = try await SimulatedBlueZ(bus: bus, arguments: ["--bikes", "1", "--known", "--rate", "20", "--fault", "notify-uaf"])
        defer { sim.stop() }
        let monitor = try ChildProcess(
            ProcessRunner.binary.path, ["monitor", "SF-Bike-0001", "--json"] + (signal == 0 ? ["--count", "5"] : []) + Self.noDaemon(bus),
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        defer { monitor.stop() }
        if signal != 0 {
            try await waitUntil("three frames from monitor", timeout: .seconds(30)) { monitor.stdout.split(separator: "\n").count >= 3 }
            monitor.signal(signal)
        }
        let status = await monitor.wait(within: .seconds(40))
        #expect(status == (signal == 0 ? 0 : 128 + signal), "\(monitor.stderr)")
        #expect(monitor.stdout.split(separator: "\n").count >= (signal == 0 ? 5 : 3))
        let client = try #require(sim.clients(calling: "AcquireNotify").first, "\(sim.log.suffix(800))")
        #expect(try await sim.crash(whenLeaving: client) == nil, "\(sim.log.suffix(1500))")
    }
}
