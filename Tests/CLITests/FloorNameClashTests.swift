import BlueZTesting
import DBus
import JSON
import MQTTTesting
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Two boxes under one floor name (an SD card cloned with its host name, a config copied with
/// its `[fleet] gateway`) overwrite each other's presence and claims. Neither can see that from
/// its own side, so each counts the live presences under its name that it did not send: two
/// real `ftms-bridged` on one private mosquitto, each on its own bus.
@Suite("The floor: two gateways under one name")
struct FloorNameClashTests {
    typealias Gateway = FloorProcessTests.Gateway

    static func clashes(_ gateway: Gateway) async -> Int? {
        await gateway.status()?["floor"]?["counters"]?["name_clashes"]?.integer.map(Int.init)
    }

    /// First alone: a gateway killed and started again finds its own retained presence, and
    /// the last will of its killed connection, under its name, and neither is a clash. Then a
    /// second box comes up under the same floor name: both count the other's presences, and
    /// `status` says so.
    @Test func aSecondBoxUnderTheSameFloorNameIsReportedByBothAndARestartIsNot() async throws {
        let broker = try await PrivateBroker()
        let busA = try PrivateBus()
        let busB = try PrivateBus()
        let simA = try await SimulatedBlueZ(bus: busA, arguments: ["--bikes", "1", "--rate", "4", "--seed", "3"])
        let simB = try await SimulatedBlueZ(bus: busB, arguments: ["--bikes", "1", "--rate", "4", "--seed", "4"])
        defer {
            simA.stop()
            simB.stop()
        }
        let sameName = #"gateway = "twin""#
        var first = try await Gateway("twin-a", bus: busA, broker: broker, allow: [], fleet: sameName)
        let started = first
        try await waitUntil("twin-a to hear the broker's floor", timeout: .seconds(60)) {
            await started.status()?["floor"]?["broker_heard"]?.bool == true
        }
        // A few heartbeats (3 s each) with its own presences echoed back to it.
        try await Task.sleep(for: .seconds(8))
        #expect(await Self.clashes(first) == 0, "its own presences counted as another box's")

        first.daemon.signal(SIGKILL)
        _ = await first.daemon.wait(within: .seconds(10))
        first = try await Gateway("twin-a", bus: busA, broker: broker, allow: [], fleet: sameName, directory: first.directory)
        let restarted = first
        try await waitUntil("twin-a to hear the broker's floor again", timeout: .seconds(60)) {
            await restarted.status()?["floor"]?["broker_heard"]?.bool == true
        }
        try await Task.sleep(for: .seconds(8))
        #expect(await Self.clashes(first) == 0, "a restart's retained presence or last will counted as another box's")
        #expect(!first.daemon.stderr.contains("another gateway publishes its presence as twin"))

        let second = try await Gateway("twin-b", bus: busB, broker: broker, allow: [], fleet: sameName)
        let finalFirst = first
        do {
            try await waitUntil("both boxes to report the clash", timeout: .seconds(60)) {
                let a = await Self.clashes(finalFirst) ?? 0
                let b = await Self.clashes(second) ?? 0
                return a > 0 && b > 0
            }
        } catch {
            throw FloorProcessTests.Stuck(description: "\(error)\ntwin-a: \(finalFirst.daemon.stderr.suffix(3000))\ntwin-b: \(second.daemon.stderr.suffix(3000))")
        }
        let text = try await ProcessRunner.run(["status", "--control-socket", first.control], timeout: .seconds(20))
        await first.stop()
        await second.stop()
        #expect(text.stdout.contains("NAME CLASH"), "\(text.stdout)")
        #expect(first.daemon.stderr.contains("another gateway publishes its presence as twin"))
        #expect(second.daemon.stderr.contains("another gateway publishes its presence as twin"))
        // Logged once, not at every presence.
        #expect(first.daemon.stderr.components(separatedBy: "another gateway publishes its presence").count - 1 == 1)
    }
}
