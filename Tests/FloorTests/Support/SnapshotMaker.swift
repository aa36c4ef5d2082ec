import CivilTime
import DeterministicRandom
import FTMS
import Workout

/// A real open session's snapshot: a bike ridden for `seconds` and checkpointed, what a holder
/// mirrors.
enum SnapshotMaker {
    static let bike = MachineIdentity(name: "SF-Bike-0001", address: "AA:BB:CC:DD:EE:01", model: "SF-Bike-M1", type: .bike)

    static func ridden(seconds: Int = 30, seed: UInt64 = 1) throws -> SessionSnapshot {
        let origin = UTCTime(secondsSince1970: 1_795_248_000)
        var engine = SessionEngine(machine: bike, rules: SessionRules(), ids: RandomSessionIDs(using: SplitMix64(seed: seed)))
        for second in 0...seconds {
            var values = FieldValues()
            values.set(.instantaneousCadence, value: 85)
            values.set(.instantaneousPower, value: 180)
            values.set(.totalDistance, value: 1000 + 8 * Double(second))
            _ = engine.ingest(DataRecord(kind: .indoorBikeData, values: values), at: Timestamp(monotonic: .seconds(second), wallOrigin: origin))
        }
        guard let snapshot = engine.snapshot(at: Timestamp(monotonic: .seconds(seconds), wallOrigin: origin)) else {
            throw SnapshotMakerError.noOpenSession
        }
        return snapshot
    }

    enum SnapshotMakerError: Error { case noOpenSession }
}
