import BlueZTesting
import TestSupport
import DBus
import Foundation
import Testing

extension SimulatorProcessTests {
    @Suite("ftms-sim command line")
    struct CommandLineTests {
        /// Runs `ftms-sim` to its end.
        static func run(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
            try await ChildProcess.run(SimulatedBlueZ.builtBinary(), arguments, limit: .seconds(20))
        }

        @Test(arguments: [
            ["--bikes", "-3"], ["--fault", "explode"], ["--fault", "link-drop"], ["--resistance-form", "uint32"],
            ["--frobnicate"], ["--rate", "1000"], ["--adapters", "0"], ["--adapters", "17"], ["--visible-on", "some"], ["--seed", "minus-one"],
        ])
        func badFlagsAreOneLineAndStatus2(_ arguments: [String]) async throws {
            let result = try await Self.run(arguments + ["--bus", "unix:path=/nonexistent/socket"])
            #expect(result.status == 2, "\(result.stderr)")
            #expect(result.stderr.hasPrefix("ftms-sim: ") && result.stderr.filter { $0 == "\n" }.count == 1, "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }

        @Test func helpIsUsageAndStatus0() async throws {
            let result = try await Self.run(["--help"])
            #expect(result.status == 0)
            #expect(result.stdout.contains("--fault") && result.stdout.contains("--rate"))
        }

        @Test func noBusIsAOneLineErrorAndStatus1() async throws {
            let result = try await Self.run(["--bus", "unix:path=/nonexistent/socket"])
            #expect(result.status == 1)
            #expect(result.stderr.hasPrefix("ftms-sim: ") && result.stderr.contains("/nonexistent/socket"), "\(result.stderr)")
        }

        /// The ready line names every machine; SIGTERM ends the run with status 0, and the name
        /// is released.
        @Test func readyLineAndSigterm() async throws {
            let bus = try PrivateBus()
            defer { bus.stop() }
            let simulator = try await SimulatedBlueZ(bus: bus, arguments: ["--bikes", "2", "--rowers", "1", "--name-only", "1"])
            #expect(simulator.readyLine == "ready SF-Bike-0001=C0:5F:00:00:00:01 SF-Bike-0002=C0:5F:00:00:00:02 SF-Rower-0001=C0:5F:00:00:00:03 SF-Bike-9001=C0:5F:00:00:01:01")
            // A second simulator cannot take the name.
            let second = try await Self.run(["--bus", bus.address])
            #expect(second.status == 1 && second.stderr.contains("already owned"), "\(second.stderr)")
            #expect(await simulator.terminate() == 0)
            let watcher = try await DBusConnection.connect(address: bus.address)
            defer { watcher.close() }
            #expect(try await watcher.nameOwner("org.bluez") == nil)
        }

        /// The bus going away ends the simulator by itself, with status 1.
        @Test func exitsWhenTheBusGoesAway() async throws {
            let bus = try PrivateBus()
            let simulator = try await SimulatedBlueZ(bus: bus, arguments: ["--bikes", "1"])
            simulator.control.close()
            bus.stop()
            #expect(await simulator.waitForExit(within: .seconds(60)) == 1)
        }
    }
}
