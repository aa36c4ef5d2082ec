import BlueZ
import DBus
import FTMS
import Foundation
import Testing

/// The contract §2 connect sequence and the Control Point, against the dbusmock BlueZ.
@Suite("Connect and control against the dbusmock BlueZ", .serialized)
struct ConnectTests {
    func rig(kind: String = "bike", name: String = "SF-Bike-0001") async throws -> FakeRig {
        try await FakeRig(kind: kind, name: name)
    }

    @Test func connectReadsInfoSubscribesAndTakesControl() async throws {
        let rig = try await rig()
        defer { rig.stop() }
        let link = MachineLink(client: rig.client, device: rig.device)
        let info = try await link.connect()
        #expect(info.name == "SF-Bike-0001")
        #expect(info.type == .bike)
        #expect(info.manufacturer == "SolidFocus")
        #expect(info.model == "SF-Bike-M1")
        #expect(info.features?.supports(target: "resistance_target") == true)
        #expect(info.resistanceRange?.maximum != nil)
        // Request Control was the first, and only, Control Point write.
        #expect(try await rig.controlPointWrites() == [[0x00]])

        // Every notified frame arrives, decoded, in order.
        let stream = await link.notifications()
        let data = try await rig.gattPath("2ad2")
        let frames = (0..<50).map { index in
            var values = FieldValues()
            values.set(.instantaneousSpeed, raw: Int32(1000 + index))
            values.set(.instantaneousPower, raw: Int32(index))
            return DataRecord(kind: .indoorBikeData, values: values).encoded()
        }
        Task {
            for frame in frames {
                try await rig.fake.mock("NotifyValue", [.string(data), .string(Hex.string(frame))])
            }
        }
        var received: [[UInt8]] = []
        for await (characteristic, value) in stream where characteristic == .indoorBikeData {
            received.append(value)
            if received.count == frames.count { break }
        }
        #expect(received == frames)
        let powers = received.map { $0.withUnsafeBytes { DataRecord(kind: .indoorBikeData, decoding: $0) }.values.value(.instantaneousPower) }
        #expect(powers == (0..<50).map { Double($0) })
    }

    @Test func controlPointResultsAndTheSInt16Fallback() async throws {
        let rig = try await rig()
        defer { rig.stop() }
        let link = MachineLink(client: rig.client, device: rig.device)
        _ = try await link.connect()
        #expect(try await link.perform(.setTargetPower(watts: 150)).result == .success)
        // A machine that only takes the sint16 form answers the spec form with 0x03.
        try await rig.fake.mock("SetResistanceForm", [.string(rig.device), .string("sint16")])
        #expect(try await link.perform(.setTargetResistanceLevel(9.3)).result == .invalidParameter)
        #expect(try await link.perform(.setTargetResistanceLevel(9.3, form: .sint16)).result == .success)
        #expect(try await rig.controlPointWrites() == [[0x00], [0x05, 0x96, 0x00], [0x04, 0x5d], [0x04, 0x5d, 0x00]])
    }

    @Test func aDroppedLinkIsAClearError() async throws {
        let rig = try await rig()
        defer { rig.stop() }
        try await rig.fake.mock("SetConnectBehaviour", [.string(rig.device), .string("abort"), .uint32(0), .uint32(0)])
        let link = MachineLink(client: rig.client, device: rig.device)
        await #expect(throws: LinkError.self) { _ = try await link.connect() }
    }

    @Test func servicesThatNeverResolveTimeOut() async throws {
        let rig = try await rig()
        defer { rig.stop() }
        try await rig.fake.mock("SetConnectBehaviour", [.string(rig.device), .string("no-resolve"), .uint32(0), .uint32(0)])
        let link = MachineLink(client: rig.client, device: rig.device)
        await #expect(throws: LinkError.servicesNeverResolved) {
            _ = try await link.connect(resolveTimeout: .milliseconds(500))
        }
        #expect(await rig.client.pendingWaits == 0)
    }
}
