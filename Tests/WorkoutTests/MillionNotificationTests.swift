import DeterministicRandom
import FTMS
import Testing
import Workout

/// A million notifications through decoder, merger and engine make exactly the expected
/// session. How fast they go is measured by the `ReplayPipeline` benchmark in `Benchmarks/`,
/// not here: timed unit tests only measure how busy the CI machine is.
@Suite("A million notifications")
struct ThroughputTests {
    /// A 35-hour ride notified at 4 Hz, split as real machines do: a More Data packet with
    /// distance and energy, then the bit-0 = 0 packet with speed, cadence, power and heart rate.
    static func frames(count: Int) -> [[UInt8]] {
        var frames: [[UInt8]] = []
        frames.reserveCapacity(count)
        var index = 0
        while frames.count < count {
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
            frames.append(more.encoded())
            frames.append(DataRecord(kind: .indoorBikeData, values: head).encoded())
            index += 1
        }
        return frames
    }

    @Test func decoderMergerAndEngineMakeOneExactSession() throws {
        let count = 1_000_000
        let frames = Self.frames(count: count)
        var merger = RecordMerger(kind: .indoorBikeData)
        var engine = SessionEngine(machine: Ride.bike, ids: RandomSessionIDs(using: SplitMix64(seed: 1)))
        var started = 0
        for (index, frame) in frames.enumerated() {
            // Two notifications per quarter second.
            let time = Timestamp(monotonic: .milliseconds(Int64(index / 2) * 250), wallOrigin: Ride.origin)
            let record = frame.withUnsafeBytes { DataRecord(kind: .indoorBikeData, decoding: $0) }
            guard let merged = merger.ingest(record, at: time.monotonic) else { continue }
            started += engine.ingest(merged, at: time).count
        }
        let last = Timestamp(monotonic: .milliseconds(Int64(count / 2) * 250), wallOrigin: Ride.origin)
        let summary = try #require(engine.close(at: last, reason: .endOfCapture).last?.summary)

        #expect(started == 1)
        // 500 000 samples 0.25 s apart: 125 000 s of riding.
        #expect(summary.duration == 125_000)
        #expect(summary.totalDistance == 1_062_497)
        #expect(summary.detail.sampleCount == 500_000)
    }
}
