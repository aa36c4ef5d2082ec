import Testing

@testable import Simulator

/// `--spread-phases`: the streaming machines' first frames fall evenly over one interval, on the
/// simulator's one clock, whenever their links start; off, one interval after the link's start.
@Suite("Stream phases")
struct StreamPhaseTests {
    private let interval = Duration.milliseconds(250)

    /// Where in the interval (from the simulator's epoch) each streaming machine's first frame falls.
    private func phases(spread: Bool) async -> [Duration] {
        var configuration = SimulatorConfiguration.gym(bikes: 2, rowers: 2, nameOnly: 1, rate: 4)
        configuration.spreadPhases = spread
        let simulator = BlueZSimulator(configuration: configuration, busAddress: "unix:path=/nonexistent")
        var phases: [Duration] = []
        for spec in configuration.machines where spec.streamRate > 0 {
            let now = ContinuousClock.now
            let first = await simulator.firstDeadline(of: spec, interval: interval)
            #expect(first > now && first <= now + interval)
            let sinceEpoch = first - simulator.phaseEpoch
            let periods = (sinceEpoch / interval).rounded(.down)
            phases.append(sinceEpoch - interval * periods)
        }
        return phases
    }

    @Test func spreadMachinesTakeEvenPhasesOfTheInterval() async {
        let phases = await phases(spread: true)
        let expected: [Duration] = [0, 1, 2, 3].map { interval * (Double($0) / 4) }
        #expect(phases.count == 4)
        for (phase, want) in zip(phases, expected) {
            // Circular: a phase a hair under the interval is the interval's start.
            let off = abs((phase - want) / .microseconds(1)).truncatingRemainder(dividingBy: interval / .microseconds(1))
            #expect(min(off, interval / .microseconds(1) - off) < 1, "phase \(phase), want \(want)")
        }
    }

    @Test func withoutSpreadTheFirstFrameIsOneIntervalAfterTheLinkStarts() async {
        var configuration = SimulatorConfiguration.gym(bikes: 1, rate: 4)
        configuration.spreadPhases = false
        let simulator = BlueZSimulator(configuration: configuration, busAddress: "unix:path=/nonexistent")
        let before = ContinuousClock.now
        let first = await simulator.firstDeadline(of: configuration.machines[0], interval: interval)
        #expect(first >= before + interval && first <= ContinuousClock.now + interval)
    }
}
