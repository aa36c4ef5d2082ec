import DeterministicRandom
import Publish
import FTMS
import Foundation
import Testing
import Workout

/// The floor shows the ride. `session_state` and, while a session is open, each `sample`
/// carry the session's own distance, energy and time; the machine's counters stay in `sample`
/// as they came.
@Suite("Publish: session figures in the payloads")
struct SessionFiguresPayloadTests {
    static let origin = UTCTime(secondsSince1970: 1_795_248_000)

    /// A machine whose counters stood at 12 000 m and 300 kcal when the rider started, ridden
    /// 10 s at 8.5 m/s.
    func ride() -> (engine: SessionEngine, record: DataRecord) {
        var engine = SessionEngine(
            machine: MachineIdentity(name: "SF-Bike-0001", address: "C0:5F:00:00:00:01", model: nil, type: .bike),
            ids: RandomSessionIDs(using: SplitMix64(seed: 1)))
        var record = DataRecord(kind: .indoorBikeData, values: FieldValues())
        for second in 0...10 {
            var values = FieldValues()
            values.set(.instantaneousSpeed, value: 30)
            values.set(.instantaneousCadence, value: 85)
            values.set(.instantaneousPower, value: 180)
            values.set(.totalDistance, value: 12_000 + 8.5 * Double(second))
            values.set(.totalEnergy, value: 300 + Double(second / 5))
            record = DataRecord(kind: .indoorBikeData, values: values)
            _ = engine.ingest(record, at: Timestamp(monotonic: .seconds(second), wallOrigin: Self.origin))
        }
        return (engine, record)
    }

    func object(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test func aSampleInASessionCarriesTheSessionsFiguresBesideTheMachinesCounters() throws {
        let (engine, record) = ride()
        let progress = try #require(engine.progress(at: Timestamp(monotonic: .seconds(10), wallOrigin: Self.origin)))
        let sample = try object(MetricsPayloads.sample(record, session: progress).bytes)
        #expect(sample["total_distance_m"] as? Int == 12_085)
        #expect(sample["total_energy_kcal"] as? Int == 302)
        #expect(sample["session_distance_m"] as? Int == 85)
        #expect(sample["session_energy_kcal"] as? Int == 2)
        #expect(sample["session_elapsed_ms"] as? Int == 10_000)
        #expect(sample["session_moving_ms"] as? Int == 10_000)
        // Without a session, the sample is the decoded record alone, as before.
        let alone = String(decoding: MetricsPayloads.sample(record, session: nil).bytes, as: UTF8.self)
        #expect(alone == String(decoding: MetricsPayloads.decoded(.data(record)).bytes, as: UTF8.self))
        #expect(!alone.contains("session_"))
    }

    @Test func sessionStateCarriesTheSessionsDistanceAndEnergy() throws {
        var (engine, _) = ride()
        let events = engine.close(at: Timestamp(monotonic: .seconds(11), wallOrigin: Self.origin), reason: .shutdown)
        let finished = try #require(events.last)
        let state = try object(MetricsPayloads.sessionState(finished).bytes)
        #expect(state["distanceM"] as? Int == 85)
        #expect(state["energyKcal"] as? Int == 2)
        #expect(state["elapsedMs"] as? Int != nil && state["startEpoch"] as? Int != nil)
    }
}
