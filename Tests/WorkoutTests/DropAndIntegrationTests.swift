import FTMS
import Testing
import Workout

/// contract §5's minimum and the integrated totals of machines without counters.
@Suite("Dropped sessions and integrated totals")
struct DropAndIntegrationTests {
    /// 30 s of riding (samples 0…30, the last held 3 s) is 33 s of movement: below 60 s.
    @Test func tooShortIsDropped() throws {
        var ride = Ride()
        for second in 0...30 {
            ride.sample(Double(second), [.instantaneousCadence: 80, .instantaneousPower: 150, .totalDistance: 8 * Double(second)])
        }
        ride.tick(200)
        #expect(ride.timeline == ["started", "paused:idle", "dropped:too_short"])
        let summary = try #require(ride.ended.first)
        #expect(summary.duration == 33)
        #expect(ride.finished.isEmpty)
    }

    /// Cadence alone for 90 s: movement enough, but no distance and no energy to keep.
    @Test func noDistanceAndNoEnergyIsDropped() {
        var ride = Ride()
        for second in 0...90 { ride.sample(Double(second), [.instantaneousCadence: 80]) }
        ride.close(91)
        #expect(ride.timeline == ["started", "dropped:no_distance_or_energy"])
    }

    /// 250 W and 36 km/h, with a 5 s dropout after 60 s. Holds: samples 0…59 1 s each, sample
    /// 60 capped at 3 s (the dropout is not effort), samples 65…124 1 s each, sample 125 1 s
    /// to the stop at 126: 124 s. Energy 250 W × 124 s = 31 000 J / 4184 / 0.25 = 29.6 →
    /// 30 kcal; distance 10 m/s × 124 s = 1240 m.
    @Test func energyAndDistanceIntegrateWithCappedGaps() throws {
        var ride = Ride()
        for second in Array(0...60) + Array(65...125) {
            ride.sample(Double(second), [.instantaneousPower: 250, .instantaneousSpeed: 36, .instantaneousCadence: 90])
        }
        ride.status(126, .stoppedOrPausedByUser, [1])
        let summary = try #require(ride.finished.first)
        #expect(summary.duration == 124)
        #expect(summary.detail.elapsed == 126)
        #expect(summary.detail.paused == 2)
        #expect(summary.totalEnergy == 30)
        #expect(summary.detail.energyMethod == .integrated)
        #expect(summary.totalDistance == 1240)
        #expect(summary.detail.distanceMethod == .integrated)
    }

    /// A machine that sends Total Energy but never fills it (stuck at 0) while power says
    /// 200 W for 100 s: the integral (200·100/1046 = 19.1 → 19 kcal) wins over the dead counter.
    @Test func aCounterThatNeverMovesLosesToTheIntegral() throws {
        var ride = Ride()
        for second in 0...100 { ride.sample(Double(second), [.instantaneousPower: 200, .totalEnergy: 0, .totalDistance: 5 * Double(second)]) }
        ride.close(100)
        let summary = try #require(ride.finished.first)
        #expect(summary.totalEnergy == 19)
        #expect(summary.detail.energyMethod == .integrated)
        #expect(summary.detail.distanceMethod == .counter)
    }

    /// Energy "not available" (0xFFFF) is no value: the counter is not seen at all.
    @Test func energyNotAvailableIsNotACounter() throws {
        var ride = Ride()
        for second in 0...100 {
            var values = FieldValues()
            values.set(.instantaneousPower, value: 100)
            values.set(.totalEnergy, raw: 0xFFFF)
            ride.events += ride.engine.ingest(DataRecord(kind: .indoorBikeData, values: values), at: Ride.time(Double(second)))
        }
        ride.close(100)
        let summary = try #require(ride.finished.first)
        // 100 W · 100 s / 1046 = 9.6 → 10 kcal.
        #expect(summary.totalEnergy == 10)
        #expect(summary.detail.energyMethod == .integrated)
        #expect(summary.detail.distanceMethod == TotalMethod.none)
    }
}
