import BlueZ
import Testing
import RetryTiming

@Suite("Reconnect backoff")
struct BackoffTests {
    @Test func doublesFromTheInitialStepUpToTheCap() {
        var backoff = Backoff(initial: .milliseconds(500), maximum: .seconds(4))
        let lowest = (0..<6).map { _ in backoff.next(random: 0) }
        #expect(lowest == [.milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(2), .seconds(2)])
        backoff.reset()
        let highest = (0..<6).map { _ in backoff.next(random: 0.999_999_999) }
        #expect(highest.last == .seconds(4) || highest.last! > .milliseconds(3_999))
        #expect(highest.allSatisfy { $0 <= .seconds(4) })
    }

    @Test func neverExceedsTheCapNorFallsBelowHalfTheStep() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<100 {
            var backoff = Backoff(initial: .milliseconds(100), maximum: .seconds(30), multiplier: 2)
            var step = 0.1
            for _ in 0..<200 {
                let delay = backoff.next(random: Double.random(in: 0..<1, using: &generator))
                #expect(delay <= .seconds(30))
                #expect(delay >= .seconds(min(step, 30) / 2))
                step *= 2
            }
        }
    }

    @Test func jitterSpreadsMachinesThatDroppedTogether() {
        let delays = (0..<50).map { index in
            var backoff = Backoff(initial: .seconds(1), maximum: .seconds(30))
            for _ in 0..<4 { _ = backoff.next(random: 0.5) }
            return backoff.next(random: Double(index) / 50)
        }
        #expect(Set(delays).count == 50)
        #expect(delays.min()! >= .seconds(8) && delays.max()! < .seconds(16))
    }
}
