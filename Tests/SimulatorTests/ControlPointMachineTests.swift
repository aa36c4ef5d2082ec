import FTMS
import Simulator
import Testing

/// The Control Point as the simulated firmware answers it, without a bus.
@Suite("Control Point machine")
struct ControlPointMachineTests {
    @Test func everythingBeforeRequestControlIsNotPermitted() {
        var machine = ControlPointMachine(kind: .bike, resistanceForm: .uint8)
        #expect(machine.handle([0x05, 0x96, 0x00]).response == [0x80, 0x05, 0x05])
        #expect(machine.handle([0x07]).response == [0x80, 0x07, 0x05])
        #expect(machine.handle([0x00]) == .init(response: [0x80, 0x00, 0x01], status: nil, event: nil))
        #expect(machine.controlled)
        #expect(machine.handle([0x07]) == .init(response: [0x80, 0x07, 0x01], status: [0x04], event: .startedOrResumed))
    }

    @Test func resistanceFormsAndRange() {
        var uint8 = ControlPointMachine(kind: .bike, resistanceForm: .uint8)
        _ = uint8.handle([0x00])
        #expect(uint8.handle([0x04, 0x5D]) == .init(response: [0x80, 0x04, 0x01], status: [0x07, 0x5D], event: .targetResistance(9.3)))
        #expect(uint8.handle([0x04, 0x5D, 0x00]).response == [0x80, 0x04, 0x03])
        // 0x2AD6 says 1.0–24.0: 0.5 and 25.0 are outside.
        #expect(uint8.handle([0x04, 0x05]).response == [0x80, 0x04, 0x03])
        #expect(uint8.handle([0x04, 0xFA]).response == [0x80, 0x04, 0x03])

        var sint16 = ControlPointMachine(kind: .rower, resistanceForm: .sint16)
        _ = sint16.handle([0x00])
        #expect(sint16.handle([0x04, 0x5D]).response == [0x80, 0x04, 0x03])
        let outcome = sint16.handle([0x04, 0x5D, 0x00])
        #expect(outcome.response == [0x80, 0x04, 0x01])
        // The status echoes the machine's own (two-byte) form, which the decoder reports.
        #expect(outcome.status == [0x07, 0x5D, 0x00])
        let status = outcome.status.map { bytes in bytes.withUnsafeBytes { FitnessMachineStatus(decoding: $0) } }
        #expect(status?.opCode == .targetResistanceLevelChanged && status?.parameterBytes == 2)
    }

    @Test func powerStopPauseResetAndForcedResults() {
        var bike = ControlPointMachine(kind: .bike, resistanceForm: .any)
        _ = bike.handle([0x00])
        #expect(bike.handle([0x05, 0x96, 0x00]) == .init(response: [0x80, 0x05, 0x01], status: [0x08, 0x96, 0x00], event: .targetPower(watts: 150)))
        #expect(bike.handle([0x05, 0x05, 0x00]).response == [0x80, 0x05, 0x03])
        #expect(bike.handle([0x05, 0x96]).response == [0x80, 0x05, 0x03])
        #expect(bike.handle([0x08, 0x02]) == .init(response: [0x80, 0x08, 0x01], status: [0x02, 0x02], event: .paused))
        #expect(bike.handle([0x08, 0x03]).response == [0x80, 0x08, 0x03])
        #expect(bike.handle([0x13]).response == [0x80, 0x13, 0x02])
        bike.forcedResults[0x07] = 0x04
        #expect(bike.handle([0x07]) == .init(response: [0x80, 0x07, 0x04], status: nil, event: nil))
        #expect(bike.handle([0x01]) == .init(response: [0x80, 0x01, 0x01], status: [0x01], event: .reset))
        #expect(!bike.controlled)
        // The rower has no power target.
        var rower = ControlPointMachine(kind: .rower, resistanceForm: .uint8)
        _ = rower.handle([0x00])
        #expect(rower.handle([0x05, 0x96, 0x00]).response == [0x80, 0x05, 0x02])
        rower.loseControl()
        #expect(rower.handle([0x04, 0x20]).response == [0x80, 0x04, 0x05])
    }

    /// Every response the machine gives decodes as the FTMS codec's response to that request.
    @Test func responsesDecode() {
        var machine = ControlPointMachine(kind: .bike, resistanceForm: .uint8)
        for request: [UInt8] in [[0x00], [0x04, 0x64], [0x05, 0xC8, 0x00], [0x07], [0x08, 0x01], [0x11, 0, 0, 0x64, 0, 0x28, 0x33], [0x42]] {
            let outcome = machine.handle(request)
            guard case .response(let response) = outcome.response.withUnsafeBytes({ ControlPointMessage(decoding: $0) }) else {
                Issue.record("\(outcome.response) is not a response")
                continue
            }
            #expect(response.requestOpCode == request[0])
            #expect(response.result != nil)
        }
    }
}
