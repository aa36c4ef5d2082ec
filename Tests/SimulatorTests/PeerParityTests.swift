import BlueZ
import BlueZTesting
import DBus
import FTMS
import Testing

extension SimulatorProcessTests {
    /// The same test against both BlueZ peers: python-dbusmock's (a fake we did not write)
    /// and ftms-sim. Same controls, same paths, same answers, so tests can swap them.
    @Suite("Peer parity with the Python fake")
    struct PeerParityTests {
        enum Peer: String, CaseIterable, Sendable {
            case dbusmock
            case simulator
        }

        /// The Python fake's README table, for C0:11:22:33:44:01 on hci0.
        static let expectedPaths: [String: String] = {
            let device = "/org/bluez/hci0/dev_C0_11_22_33_44_01"
            var paths = [
                "1801": "/service0001", "2a05": "/service0001/char0002", "2a05/2902": "/service0001/char0002/desc0004",
                "180a": "/service000a", "2a29": "/service000a/char000b", "2a24": "/service000a/char000d",
                "1826": "/service000f", "2acc": "/service000f/char0010", "2ad2": "/service000f/char0012",
                "2ad2/2902": "/service000f/char0012/desc0014", "2ada": "/service000f/char0015",
                "2ada/2902": "/service000f/char0015/desc0017", "2ad9": "/service000f/char0018",
                "2ad9/2902": "/service000f/char0018/desc001a", "2ad6": "/service000f/char001b", "2ad8": "/service000f/char001d",
            ]
            for key in paths.keys { paths[key] = device + (paths[key] ?? "") }
            return paths
        }()

        @Test(arguments: Peer.allCases)
        func sameMachineSamePathsSameAnswers(_ peer: Peer) async throws {
            let bus = try PrivateBus()
            defer { bus.stop() }
            let controls: any BlueZMockControls
            let stop: @Sendable () -> Void
            switch peer {
            case .dbusmock:
                let fake = try await FakeBlueZ(bus: bus)
                controls = fake
                stop = { fake.stop() }
            case .simulator:
                let simulator = try await SimulatedBlueZ(bus: bus, arguments: ["--adapters", "0", "--bikes", "0"])
                controls = simulator
                stop = { simulator.stop() }
            }
            defer { stop() }
            _ = try await controls.mock("AddAdapter", [.string("hci0"), .string("gateway")])
            let device = try await controls.mock("AddFTMSMachine", [.string("hci0"), .string("C0:11:22:33:44:01"), .string("SF-Bike-0001"), .string("bike")]).first?.string ?? ""
            let paths = try await controls.gattPaths(device)
            #expect(paths == Self.expectedPaths)

            let connection = try await DBusConnection.connect(address: bus.address)
            defer { connection.close() }
            let client = BlueZClient(connection: connection)
            try await client.start()
            #expect(await client.machines(passing: MachineFilter()).map(\.name) == ["SF-Bike-0001"])
            let link = MachineLink(client: client, device: device)
            let info = try await link.connect(timeout: .seconds(5), resolveTimeout: .seconds(5))
            #expect(info.manufacturer == "SolidFocus" && info.model == "SF-Bike-M1")
            #expect(try await link.perform(.setTargetPower(watts: 150)).result == .success)
            _ = try await controls.mock("SetResistanceForm", [.string(device), .string("sint16")])
            #expect(try await link.perform(.setTargetResistanceLevel(9.3)).result == .invalidParameter)
            #expect(try await link.perform(.setTargetResistanceLevel(9.3, form: .sint16)).result == .success)
            #expect(try await controls.writes(paths["2ad9"] ?? "") == [[0x00], [0x05, 0x96, 0x00], [0x04, 0x5D], [0x04, 0x5D, 0x00]])

            let stream = await link.notifications()
            let frames = (0..<30).map { index -> [UInt8] in
                var values = FieldValues()
                values.set(.instantaneousSpeed, raw: Int32(2000 + index))
                return DataRecord(kind: .indoorBikeData, values: values).encoded()
            }
            let data = paths["2ad2"] ?? ""
            Task {
                for frame in frames { _ = try await controls.mock("NotifyValue", [.string(data), .string(Hex.string(frame))]) }
            }
            var received: [[UInt8]] = []
            for await (characteristic, value) in stream where characteristic == .indoorBikeData {
                received.append(value)
                if received.count == frames.count { break }
            }
            #expect(received == frames, "\(peer)")
        }
    }
}
