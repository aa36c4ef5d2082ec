import BlueZTesting
import DBus
import Foundation
import Testing

/// `ftms-bridge control` as a real process against the dbusmock BlueZ: the bytes it writes
/// and the result code it reports.
@Suite("ftms-bridge control", .serialized)
struct ControlCommandTests {
    struct Machine {
        let bus: PrivateBus
        let fake: FakeBlueZ
        let device: String
        /// `control` asks a running daemon first: the command is pointed at a socket in the
        /// bus's own directory where none listens, so a daemon running on this box (and the
        /// gym's machines behind it) is never asked.
        var noDaemon: [String] { ["--control-socket", bus.directoryPath + "/no-daemon.sock"] }

        func writes() async throws -> [String] {
            let paths = try await fake.mock("GetGattPaths", [.string(device)]).first?.stringDictionary ?? [:]
            let controlPoint = try #require(paths["2ad9"]?.string)
            return (try await fake.mock("GetWrites", [.string(controlPoint)]).first?.array ?? []).compactMap(\.bytes).map { $0.map { String(format: "%02x", $0) }.joined() }
        }

        func control(_ arguments: [String]) async throws -> ProcessRunner.Result {
            try await ProcessRunner.run(["control", "SF-Bike-0001"] + arguments + noDaemon,
                                                environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address], timeout: .seconds(40))
        }

        func stop() {
            fake.stop()
            bus.stop()
        }
    }

    func machine() async throws -> Machine {
        let bus = try PrivateBus()
        let fake = try await FakeBlueZ(bus: bus)
        try await fake.addAdapter("hci0")
        let device = try await fake.addMachine(address: "C0:11:22:33:44:01", name: "SF-Bike-0001", kind: "bike")
        return Machine(bus: bus, fake: fake, device: device)
    }

    @Test func writesTheRequestAndReportsSuccess() async throws {
        let machine = try await machine()
        defer { machine.stop() }
        let power = try await machine.control(["--power", "150"])
        #expect(power.status == 0, "\(power.stderr)")
        #expect(power.stdout == "SF-Bike-0001: set_target_power 059600 → success\n")
        let start = try await machine.control(["--start", "--json"])
        #expect(start.status == 0, "\(start.stderr)")
        #expect(start.stdout == #"{"address":"C0:11:22:33:44:01","machine":"SF-Bike-0001","operation":"start_or_resume","request":"07","result":"success","result_code":1,"written":["07"]}"# + "\n")
        // Each run took control first, then wrote its command.
        #expect(try await machine.writes() == ["00", "059600", "00", "07"])
    }

    @Test func resistanceFallsBackToSInt16AndIsClamped() async throws {
        let machine = try await machine()
        defer { machine.stop() }
        try await machine.fake.mock("SetResistanceForm", [.string(machine.device), .string("sint16")])
        let result = try await machine.control(["--resistance", "99"])
        #expect(result.status == 0, "\(result.stderr)")
        // 99 is above the machine's 24.0 maximum: 240 tenths, first as uint8, then as sint16.
        #expect(result.stdout == "SF-Bike-0001: set_target_resistance_level 04f000 → success (wrote 04f0, 04f000)\n")
    }

    @Test func aRefusalIsReportedWithItsResultAndExitStatus() async throws {
        let machine = try await machine()
        defer { machine.stop() }
        try await machine.fake.mock("SetControlPointResult", [.string(machine.device), .uint32(0x08), .uint32(0x02)])
        let result = try await machine.control(["--pause"])
        #expect(result.status == 1)
        #expect(result.stdout == "SF-Bike-0001: pause 0802 → op_code_not_supported\n")
        #expect(result.stderr == "ftms-bridge: control: SF-Bike-0001 answered pause with op_code_not_supported\n")
    }

    @Test func exactlyOneCommandIsRequired() async throws {
        let none = try await ProcessRunner.run(["control", "SF-Bike-0001"], timeout: .seconds(10))
        #expect(none.status != 0)
        #expect(none.stderr.contains("give exactly one of --resistance, --power, --start, --stop, --pause, --reset"))
        let two = try await ProcessRunner.run(["control", "SF-Bike-0001", "--start", "--stop"], timeout: .seconds(10))
        #expect(two.status != 0)
    }

    /// Standalone, control connects (acquiring the data and status sockets), sends, and gives
    /// the sockets back before it disconnects and leaves: bluetoothd 5.66 (the simulator's
    /// `notify-uaf`) comes through.
    @Test func leavesBluetoothdWhole() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let sim = try await SimulatedBlueZ(bus: bus, arguments: ["--bikes", "1", "--known", "--rate", "4", "--fault", "notify-uaf"])
        defer { sim.stop() }
        let result = try await ProcessRunner.run(
            ["control", "SF-Bike-0001", "--start", "--standalone"], environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address], timeout: .seconds(40))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "SF-Bike-0001: start_or_resume 07 → success\n")
        let client = try #require(sim.clients(calling: "AcquireNotify").first, "\(sim.log.suffix(800))")
        #expect(try await sim.crash(whenLeaving: client) == nil, "\(sim.log.suffix(1500))")
    }
}
