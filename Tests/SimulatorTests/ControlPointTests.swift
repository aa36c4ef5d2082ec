import BlueZ
import DBus
import FTMS
import Testing

extension SimulatorProcessTests {
    @Suite("Control Point")
    struct ControlPointTests {
        /// Success with its Status, out of range, control lost and taken back; resistance
        /// and power targets show in the frames that follow.
        @Test func successInvalidParameterAndNotPermitted() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--rate", "40"])
            defer { rig.stop() }
            let device = try rig.device("SF-Bike-0001")
            let link = try await rig.connectedLink("SF-Bike-0001")
            let stream = await link.notifications()
            var iterator = stream.makeAsyncIterator()
            func next(_ wanted: Characteristic, where accept: ([UInt8]) -> Bool = { _ in true }) async -> [UInt8]? {
                for _ in 0..<400 {
                    guard let (characteristic, value) = await iterator.next() else { return nil }
                    if characteristic == wanted, accept(value) { return value }
                }
                return nil
            }
            func data(_ value: [UInt8]) -> FieldValues { DataRecord(kind: .indoorBikeData, decoding: value).values }

            let easy = await next(.indoorBikeData).map(data)?.value(.instantaneousPower) ?? 0
            #expect(try await link.perform(.setTargetResistanceLevel(24)).result == .success)
            #expect(await next(.fitnessMachineStatus) == [0x07, 0xF0])
            let hard = await next(.indoorBikeData) { data($0).value(.resistanceLevel) == 24 }.map(data)
            #expect((hard?.value(.instantaneousPower) ?? 0) > easy)

            // 25.5 is above the machine's 24.0 maximum.
            #expect(try await link.perform(.setTargetResistanceLevel(25.5)).result == .invalidParameter)

            try await rig.simulator.mock("LoseControl", [.string(device)])
            #expect(await next(.fitnessMachineStatus) == [0xFF])
            #expect(try await link.perform(.setTargetPower(watts: 150)).result == .controlNotPermitted)
            #expect(try await link.perform(.requestControl).result == .success)
            #expect(try await link.perform(.setTargetPower(watts: 150)).result == .success)
            let held = await next(.indoorBikeData) { abs((data($0).value(.instantaneousPower) ?? 0) - 150) <= 3 }
            #expect(held != nil, "frames follow the power target")

            let writes = try await rig.simulator.writes(try await rig.simulator.gattPaths(device)["2ad9"] ?? "")
            #expect(writes == [[0x00], [0x04, 0xF0], [0x04, 0xFF], [0x05, 0x96, 0x00], [0x00], [0x05, 0x96, 0x00]])
        }

        /// A machine that only takes the sint16 form: the spec's form gets 0x03, and the
        /// bridge's policy falls back once and succeeds.
        @Test func aSint16OnlyMachine() async throws {
            let rig = try await SimulatorRig.start(["--rowers", "1", "--bikes", "0", "--resistance-form", "sint16"])
            defer { rig.stop() }
            let link = try await rig.connectedLink("SF-Rower-0001")
            #expect(try await link.perform(.setTargetResistanceLevel(9.3)).result == .invalidParameter)
            #expect(try await link.perform(.setTargetResistanceLevel(9.3, form: .sint16)).result == .success)
            let outcome = try await link.send(.resistance(5))
            #expect(outcome.succeeded)
            #expect(outcome.written == [[0x04, 0x32], [0x04, 0x32, 0x00]])
            // The rower has no power target.
            #expect(try await link.perform(.setTargetPower(watts: 100)).result == .opCodeNotSupported)
        }

        @Test func gattErrorsAsBlueZGivesThem() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--known"])
            defer { rig.stop() }
            let device = try rig.device("SF-Bike-0001")
            let paths = try await rig.simulator.gattPaths(device)
            let controlPoint = paths["2ad9"] ?? ""
            let gatt = "org.bluez.GattCharacteristic1"
            let request = DBusValue.properties(["type": .string("request")])
            #expect(await rig.failure(paths["2a29"] ?? "", gatt, "ReadValue", [.properties([:])]) == .remote(name: "org.bluez.Error.Failed", message: "Not connected"))
            try await rig.call(device, "org.bluez.Device1", "Connect")
            // Indications not enabled: the machine answers ATT 0xFD.
            #expect(await rig.failure(controlPoint, gatt, "WriteValue", [.bytes([0x00]), request])
                == .remote(name: "org.bluez.Error.Failed", message: "Operation failed with ATT error: 0xfd"))
            #expect(await rig.failure(controlPoint, gatt, "StopNotify") == .remote(name: "org.bluez.Error.Failed", message: "No notify session started"))
            #expect(await rig.failure(paths["2a29"] ?? "", gatt, "StartNotify")?.remoteName == "org.bluez.Error.NotSupported")
            #expect(await rig.failure(paths["2ad2"] ?? "", gatt, "ReadValue", [.properties([:])]) == .remote(name: "org.bluez.Error.NotPermitted", message: "Read not permitted"))
            #expect(await rig.failure(paths["2a29"] ?? "", gatt, "ReadValue", [.properties(["offset": .uint32(1)])])?.remoteName == "org.bluez.Error.InvalidArguments")
            #expect(await rig.failure(paths["2ad9/2902"] ?? "", "org.bluez.GattDescriptor1", "WriteValue", [.bytes([1, 0]), .properties([:])])
                == .remote(name: "org.bluez.Error.NotPermitted", message: "Write not permitted"))
            try await rig.call(controlPoint, gatt, "StartNotify")
            #expect(await rig.failure(controlPoint, gatt, "WriteValue", [.bytes([]), request])?.remoteName == "org.bluez.Error.InvalidArguments")
            #expect(await rig.failure(controlPoint, gatt, "WriteValue", [.bytes([0x00]), .properties(["type": .string("sideways")])])?.remoteName == "org.bluez.Error.InvalidArguments")
            // A slow machine: a second write while the first waits is InProgress.
            try await rig.simulator.mock("SetWriteDelay", [.string(device), .uint32(300)])
            async let first = rig.call(controlPoint, gatt, "WriteValue", [.bytes([0x00]), request])
            try await rig.waitForLog("control point SF-Bike-0001: 00 -> 800001")
            #expect(await rig.failure(controlPoint, gatt, "WriteValue", [.bytes([0x07]), request]) == .remote(name: "org.bluez.Error.InProgress", message: "In Progress"))
            _ = try await first
            // Reading a value caches it: `Value` exists only after the read.
            #expect(await rig.client.tree.properties(paths["2a29"] ?? "", gatt)?["Value"] == nil)
            #expect(try await rig.call(paths["2a29"] ?? "", gatt, "ReadValue", [.properties([:])]).first?.bytes == Array("SolidFocus".utf8))
            await rig.client.sync()
            #expect(await rig.client.tree.properties(paths["2a29"] ?? "", gatt)?["Value"]?.bytes == Array("SolidFocus".utf8))
        }
    }
}
