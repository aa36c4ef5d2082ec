import Benchmark
import DeterministicRandom
import FTMS
import Workout

/// Replay's bar: decoder, merger and engine together at ≥ 1,000,000 notifications a second
/// in release. Each inner iteration runs one notification of a long ride through one
/// `MachinePipeline` — the code live BLE and replay share — so the reported time is per
/// notification (`scalingFactor: .kilo`).
///
/// The ride is split as real machines send it: a More Data packet with distance and energy,
/// then the bit-0 = 0 packet with speed, cadence, power and heart rate, 4 Hz.
let rideFrames: [[UInt8]] = (0..<1_000).flatMap { index -> [[UInt8]] in
    let seconds = Double(index) / 4
    var tail = FieldValues()
    tail.set(.totalDistance, value: (8.5 * seconds).rounded(.down))
    tail.set(.totalEnergy, value: (seconds / 12).rounded(.down))
    var head = FieldValues()
    head.set(.instantaneousSpeed, value: 30.6)
    head.set(.instantaneousCadence, value: 88)
    head.set(.instantaneousPower, value: 185)
    head.set(.heartRate, value: 135)
    var more = DataRecord(kind: .indoorBikeData, values: tail)
    more.flags = (more.flags ?? 0) | 1
    return [more.encoded(), DataRecord(kind: .indoorBikeData, values: head).encoded()]
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        scalingFactor: .kilo,
        maxDuration: .seconds(3),
        maxIterations: 10_000
    )
    let machine = MachineIdentity(name: "SF-Bike-0001", address: "C0:11:22:33:44:01", model: "SF-Bike-M1", type: .bike)
    let origin = UTCTime(secondsSince1970: 1_763_712_000)

    Benchmark("Replay pipeline: decode + merge + engine, per notification") { benchmark in
        var pipeline = MachinePipeline(machine: machine, ids: RandomSessionIDs(using: SplitMix64(seed: 1)))
        // The ride goes on across iterations, so the engine stays in an open session.
        var tick: Int64 = 0
        for _ in benchmark.scaledIterations {
            let frame = rideFrames[Int(tick % Int64(rideFrames.count))]
            let time = Timestamp(monotonic: .milliseconds(tick / 2 * 250), wallOrigin: origin)
            let output = frame.withUnsafeBytes { pipeline.notification(.indoorBikeData, $0, at: time) }
            blackHole(output)
            tick += 1
        }
    }
}
