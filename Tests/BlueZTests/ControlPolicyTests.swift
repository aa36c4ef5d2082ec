import BlueZ
import DBus
import FTMS
import Foundation
import Testing

/// contract §4's Control Point policy against the dbusmock BlueZ: the bytes on the wire and the
/// results the machine gives, through ``MachineLink/send(_:timeout:)``.
@Suite("Control Point policy against the dbusmock BlueZ", .serialized)
struct ControlPolicyTests {
    func connected(_ rig: FakeRig, forms: ResistanceFormMemory = ResistanceFormMemory()) async throws -> MachineLink {
        let link = MachineLink(client: rig.client, device: rig.device, resistanceForms: forms)
        _ = try await link.connect()
        try await rig.clearControlPointWrites()
        return link
    }

    @Test func eachCommandWritesItsBytesAndReportsTheResult() async throws {
        let rig = try await FakeRig()
        defer { rig.stop() }
        let link = try await connected(rig)
        let commands: [(MachineCommand, [UInt8])] = [
            (.power(watts: 150), [0x05, 0x96, 0x00]),
            (.start, [0x07]),
            (.pause, [0x08, 0x02]),
            (.stop, [0x08, 0x01]),
            (.reset, [0x01]),
            (.resistance(8), [0x04, 0x50]),
        ]
        for (command, bytes) in commands {
            let outcome = try await link.send(command)
            #expect(outcome.request == bytes, "\(command)")
            #expect(outcome.succeeded, "\(command): \(outcome.resultName)")
        }
        let written = try await rig.controlPointWrites()
        // Reset revokes control (FTMS 1.0 §4.16.2.2), so control is asked for before the next command.
        var expected = commands.map(\.1)
        expected.insert([0x00], at: expected.count - 1)
        #expect(written == expected, "\(written.map { Hex.string($0) })")

        // The machine's own refusal is an answer, not an error.
        try await rig.fake.mock("SetControlPointResult", [.string(rig.device), .uint32(0x07), .uint32(0x04)])
        let refused = try await link.send(.start)
        #expect(refused.response.result == .operationFailed)
        #expect(refused.resultName == "operation_failed")
    }

    @Test func resistanceIsClampedToTheMachinesRange() async throws {
        let rig = try await FakeRig()
        defer { rig.stop() }
        let link = try await connected(rig)
        // The fake declares 1.0–24.0 in steps of 1.0.
        for (asked, raw) in [(30.0, 240), (0.2, 10), (9.4, 90), (9.6, 100), (-5.0, 10)] as [(Double, UInt8)] {
            let outcome = try await link.send(.resistance(asked))
            #expect(outcome.request == [0x04, raw], "asked \(asked)")
            #expect(outcome.succeeded)
        }
    }

    @Test func theSInt16FormIsLearnedOncePerModel() async throws {
        let rig = try await FakeRig()
        defer { rig.stop() }
        try await rig.fake.mock("SetResistanceForm", [.string(rig.device), .string("sint16")])
        let forms = ResistanceFormMemory()
        let link = try await connected(rig, forms: forms)
        let first = try await link.send(.resistance(9.3))
        // 9.3 is between the machine's steps of 1.0: it goes as 9.0.
        #expect(first.written == [[0x04, 0x5a], [0x04, 0x5a, 0x00]])
        #expect(first.succeeded)
        #expect(await forms.known == ["SF-Bike-M1": .sint16])
        let second = try await link.send(.resistance(5))
        #expect(second.written == [[0x04, 0x32, 0x00]])

        // A new link to the same model starts in the learned form.
        await link.disconnect()
        let again = try await connected(rig, forms: forms)
        #expect(try await again.send(.resistance(12)).written == [[0x04, 0x78, 0x00]])
    }

    @Test func aMachineThatTakesUInt8KeepsTheSpecForm() async throws {
        let rig = try await FakeRig()
        defer { rig.stop() }
        let forms = ResistanceFormMemory()
        let link = try await connected(rig, forms: forms)
        let outcome = try await link.send(.resistance(12))
        #expect(outcome.written == [[0x04, 0x78]])
        #expect(await forms.known.isEmpty)
    }

    @Test func controlLostIsRequestedAgainBeforeTheNextCommand() async throws {
        let rig = try await FakeRig()
        defer { rig.stop() }
        let link = try await connected(rig)
        let notifications = await link.notifications()
        try await rig.fake.mock("LoseControl", [.string(rig.device)])
        for await (characteristic, value) in notifications where characteristic == .fitnessMachineStatus {
            if value == [0xFF] { break }
        }
        let outcome = try await link.send(.power(watts: 200))
        #expect(outcome.written == [[0x00], [0x05, 0xc8, 0x00]])
        #expect(outcome.succeeded)
    }

    @Test func notPermittedAsksForControlAndRetriesOnce() async throws {
        let rig = try await FakeRig()
        defer { rig.stop() }
        let link = try await connected(rig)
        // A machine that keeps refusing: one re-request, one retry, then its answer.
        try await rig.fake.mock("SetControlPointResult", [.string(rig.device), .uint32(0x05), .uint32(0x05)])
        let outcome = try await link.send(.power(watts: 150))
        #expect(outcome.written == [[0x05, 0x96, 0x00], [0x00], [0x05, 0x96, 0x00]])
        #expect(outcome.response.result == .controlNotPermitted)
    }

    @Test func aSilentMachineTimesOutAfterOneRetry() async throws {
        let rig = try await FakeRig()
        defer { rig.stop() }
        let link = try await connected(rig)
        try await rig.fake.mock("SetIndicationOrder", [.string(rig.device), .string("none")])
        let clock = ContinuousClock()
        let started = clock.now
        await #expect(throws: LinkError.controlPointTimeout(operation: "start_or_resume")) {
            _ = try await link.send(.start, timeout: .milliseconds(300))
        }
        // Two waits of the 300 ms limit, one per write.
        let elapsed = clock.now - started
        #expect(elapsed >= .milliseconds(600), "\(elapsed)")
        #expect(try await rig.controlPointWrites() == [[0x07], [0x07]])
        // The link is still usable once the machine answers again.
        try await rig.fake.mock("SetIndicationOrder", [.string(rig.device), .string("after-reply")])
        #expect(try await link.send(.start).succeeded)
    }

    @Test func commandsFromManyTasksRunOneAtATime() async throws {
        let rig = try await FakeRig()
        defer { rig.stop() }
        let link = try await connected(rig)
        try await rig.fake.mock("SetWriteDelay", [.string(rig.device), .uint32(20)])
        // A second write while one is in flight would get InProgress from the fake.
        let outcomes = try await withThrowingTaskGroup(of: CommandOutcome.self) { group in
            for watts in stride(from: 100, to: 180, by: 10) {
                group.addTask { try await link.send(.power(watts: watts)) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.count == 8 && outcomes.allSatisfy(\.succeeded))
        #expect(try await rig.controlPointWrites().count == 8)
    }
}
