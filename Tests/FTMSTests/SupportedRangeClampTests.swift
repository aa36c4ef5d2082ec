import FTMS
import Testing

/// The Control Point writer sends only levels a machine declared (contract §4).
@Suite("Supported range clamping")
struct SupportedRangeClampTests {
    @Test func clampsIntoTheRangeAndOntoTheIncrementGrid() {
        // f6 ff 2c 01 05 00: −1.0 to 30.0 in steps of 0.5.
        let range = ([0xf6, 0xff, 0x2c, 0x01, 0x05, 0x00] as [UInt8]).withUnsafeBytes { SupportedRange(kind: .resistanceLevel, decoding: $0) }
        let cases: [(Double, Double)] = [(-7, -1), (45, 30), (12.2, 12), (12.3, 12.5), (0, 0), (29.9, 30), (-0.74, -0.5)]
        for (asked, expected) in cases {
            #expect(range.clamped(asked) == expected, "asked \(asked)")
        }
    }

    @Test func everyClampedValueIsOnTheGridAndInsideTheRange() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let minimum = Double(Int.random(in: -100...100, using: &random)) / 10
            let maximum = minimum + Double(Int.random(in: 0...300, using: &random)) / 10
            let increment = Double(Int.random(in: 1...30, using: &random)) / 10
            let range = SupportedRange(kind: .resistanceLevel, minimum: minimum, maximum: maximum, increment: increment)
            let asked = Double.random(in: -50...50, using: &random)
            let value = range.clamped(asked)
            #expect(value >= minimum - 1e-9 && value <= maximum + 1e-9)
            let steps = (value - minimum) / increment
            // On the grid, or the maximum itself when the grid does not reach it exactly.
            #expect(abs(steps - steps.rounded()) < 1e-6 || abs(value - maximum) < 1e-9, "\(asked) in \(minimum)…\(maximum) by \(increment) → \(value)")
        }
    }

    @Test func aBrokenRangeLeavesTheValueAlone() {
        let inverted = SupportedRange(kind: .resistanceLevel, minimum: 10, maximum: 1, increment: 1)
        #expect(inverted.clamped(5) == 5)
        let truncated = ([0x0a, 0x00] as [UInt8]).withUnsafeBytes { SupportedRange(kind: .resistanceLevel, decoding: $0) }
        #expect(truncated.clamped(99) == 99)
        let noIncrement = SupportedRange(kind: .resistanceLevel, minimum: 1, maximum: 24, increment: 0)
        #expect(noIncrement.clamped(9.37) == 9.4)
        #expect(SupportedRange(kind: .resistanceLevel, minimum: 1, maximum: 24, increment: 1).clamped(.nan).isNaN)
    }
}
