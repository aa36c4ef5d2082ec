import DeterministicRandom
import FTMS
import Testing
import Workout

/// The pipeline thins a session's samples to its plot series: at most one point a second,
/// on the session's elapsed time, only while a session is open, with the sample's own values.
@Suite("Series recorder")
struct SeriesRecorderTests {
    static let origin = UTCTime(secondsSince1970: 1_795_248_000)

    /// Property: at random rates (1 to 8 samples a second, with gaps), the points are strictly
    /// increasing whole seconds, no more than one per second with a sample, each carrying the
    /// values of the first sample of its second.
    @Test(arguments: [1, 2, 3, 4, 5])
    func atMostOnePointASecondWithTheSamplesValues(seed: Int) throws {
        var random = SplitMix64(seed: UInt64(seed))
        let machine = MachineIdentity(name: "SF-Bike-0001", address: "C0:11:22:33:44:01", type: .bike)
        var pipeline = MachinePipeline(machine: machine, ids: RandomSessionIDs(using: SplitMix64(seed: 1)))
        var points: [(session: String, point: SeriesPoint)] = []
        var firstOfSecond: [Int64: Double] = [:]
        var millisecond: Int64 = 0
        var secondsWithSamples: Set<Int64> = []
        while millisecond < 600_000 {
            millisecond += Int64(125 + random.next() % 900) + (random.next() % 50 == 0 ? 7_000 : 0)
            let power = Double(100 + random.next() % 200)
            var values = FieldValues()
            values.set(.instantaneousPower, value: power)
            values.set(.instantaneousSpeed, value: 30)
            values.set(.instantaneousCadence, value: 80)
            values.set(.heartRate, value: 140)
            values.set(.totalDistance, value: Double(millisecond / 100))
            let frame = DataRecord(kind: .indoorBikeData, values: values).encoded()
            let time = Timestamp(monotonic: .milliseconds(millisecond), wallOrigin: Self.origin)
            let output = frame.withUnsafeBytes { pipeline.notification(.indoorBikeData, $0, at: time) }
            if pipeline.engine.openSessionID != nil {
                let second = millisecond / 1000
                secondsWithSamples.insert(second)
                if firstOfSecond[second] == nil { firstOfSecond[second] = power }
            }
            if let point = output.seriesPoint {
                points.append((try #require(pipeline.engine.openSessionID), point))
                #expect(point.power == firstOfSecond[millisecond / 1000])
                #expect(point.cadence == 80 && point.heartRate == 140)
            }
        }
        #expect(!points.isEmpty)
        #expect(points.count <= secondsWithSamples.count)
        #expect(zip(points, points.dropFirst()).allSatisfy { $0.session != $1.session || $0.point.t < $1.point.t })
        #expect(points.allSatisfy { $0.point.t == $0.point.t.rounded() })
    }

    @Test func noPointWithoutAnOpenSession() {
        var recorder = SeriesRecorder()
        let time = Timestamp(monotonic: .seconds(3), wallOrigin: Self.origin)
        #expect(recorder.wants(time))
        #expect(recorder.take(FieldValues(), at: time, in: nil) == nil)
        #expect(recorder.wants(time))
        let progress = SessionProgress(sessionID: "s", startedAt: Self.origin, elapsed: .milliseconds(2_900), moving: .seconds(2))
        #expect(recorder.take(FieldValues(), at: time, in: progress)?.t == 2)
        #expect(!recorder.wants(Timestamp(monotonic: .milliseconds(3_999), wallOrigin: Self.origin)))
    }
}
