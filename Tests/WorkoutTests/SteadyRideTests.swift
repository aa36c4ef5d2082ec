import FTMS
import Testing
import Workout

/// Known answers worked out by hand for rides that use the machine's own counters.
@Suite("Steady rides")
struct SteadyRideTests {
    /// 601 samples, one a second, at 80 rpm, 150 W, 30 km/h and 120 bpm; the console counts
    /// 8 m and 0.1 kcal a second from 1000 m and 50 kcal. Then the notifications stop.
    /// Samples 0…599 hold 1 s each, sample 600 holds the 3 s cap: 603 s of movement. Distance
    /// is 5800 − 1000 = 4800 m and energy 110 − 50 = 60 kcal, both from the counters.
    @Test func countersGiveExactDeltas() throws {
        var ride = Ride()
        for second in 0...600 {
            let t = Double(second)
            ride.sample(t, [
                .instantaneousCadence: 80, .instantaneousPower: 150, .instantaneousSpeed: 30, .heartRate: 120,
                .totalDistance: 1000 + 8 * t, .totalEnergy: 50 + Double(second / 10), .elapsedTime: 100 + t,
            ])
        }
        ride.tick(700)
        ride.tick(800)
        #expect(ride.timeline == ["started", "paused:idle", "finished"])
        // Paused at 600 + 6 s, ended at 600 + 120 s: each at the instant it fell due.
        #expect(ride.elapsedMilliseconds == [0, 606_000, 720_000])

        let summary = try #require(ride.finished.first)
        #expect(summary.startedAt.iso8601 == "2026-11-21T08:00:00Z")
        #expect(summary.endedAt.iso8601 == "2026-11-21T08:10:03Z")
        #expect(summary.duration == 603)
        #expect(summary.totalDistance == 4800)
        #expect(summary.totalEnergy == 60)
        let detail = summary.detail
        #expect(detail.elapsed == 603)
        #expect(detail.paused == 0)
        #expect(detail.distanceMethod == .counter)
        #expect(detail.energyMethod == .counter)
        #expect(detail.averagePower == 150)
        #expect(detail.maximumPower == 150)
        #expect(detail.averageCadence == 80)
        #expect(detail.averageSpeed == 30)
        #expect(detail.averageHeartRate == 120)
        #expect(detail.maximumHeartRate == 120)
        #expect(detail.strokeCount == nil)
        #expect(detail.averagePace == nil)
        #expect(detail.sampleCount == 601)
        #expect(detail.endReason == .idle)
        #expect(detail.machine == Ride.bike)
    }

    /// Averages weigh time, not samples: 100 W for 40 s at 1 Hz and 300 W for 20 s at 4 Hz
    /// average (100·40 + 300·20) / 60 = 166.7 W, where a per-sample mean would say 260 W.
    @Test func averagesAreTimeWeighted() throws {
        var ride = Ride()
        for second in 0..<40 {
            ride.sample(Double(second), [.instantaneousPower: 100, .instantaneousCadence: 60, .heartRate: 100])
        }
        for quarter in 0..<80 {
            ride.sample(40 + Double(quarter) / 4, [.instantaneousPower: 300, .instantaneousCadence: 100, .heartRate: 160])
        }
        ride.status(60, .stoppedOrPausedByUser, [1])
        let summary = try #require(ride.ended.first)
        #expect(summary.duration == 60)
        #expect(summary.detail.averagePower == 166.7)
        #expect(summary.detail.maximumPower == 300)
        // (60·40 + 100·20) / 60 = 73.3 rpm; (100·40 + 160·20) / 60 = 120 bpm.
        #expect(summary.detail.averageCadence == 73.3)
        #expect(summary.detail.averageHeartRate == 120)
        #expect(summary.detail.endReason == .stopped)
        // No speed field: the average speed is left out rather than invented.
        #expect(summary.detail.averageSpeed == nil)
    }

    /// Ride 0…300 s, stand still 301…400 s (zeros), ride 401…700 s, then the console's stop.
    /// Movement: samples 0…300 hold 1 s each (301 s), samples 401…700 hold 1 s each (300 s):
    /// 601 s. Elapsed runs to the stop at 701 s, so 100 s were paused. No energy counter:
    /// 200 W × 601 s = 120 200 J → 120 200 / 4184 / 0.25 = 114.9 → 115 kcal, integrated.
    @Test func aPauseIsNotMovement() throws {
        var ride = Ride()
        for second in 0...700 {
            let t = Double(second)
            let riding = second <= 300 || second > 400
            let distance = second <= 300 ? 8 * t : second <= 400 ? 2400 : 2400 + 8 * (t - 400)
            ride.sample(t, [
                .instantaneousCadence: riding ? 85 : 0, .instantaneousPower: riding ? 200 : 0,
                .instantaneousSpeed: riding ? 28.8 : 0, .totalDistance: distance,
            ])
        }
        ride.status(701, .stoppedOrPausedByUser, [1])
        #expect(ride.timeline == ["started", "paused:idle", "resumed", "finished"])
        #expect(ride.elapsedMilliseconds == [0, 306_000, 401_000, 701_000])
        let summary = try #require(ride.finished.first)
        #expect(summary.duration == 601)
        #expect(summary.detail.elapsed == 701)
        #expect(summary.detail.paused == 100)
        #expect(summary.totalDistance == 4800)
        #expect(summary.detail.distanceMethod == .counter)
        #expect(summary.totalEnergy == 115)
        #expect(summary.detail.energyMethod == .integrated)
        // Zeros while standing are not averaged: the pause is not effort.
        #expect(summary.detail.averagePower == 200)
        #expect(summary.detail.averageSpeed == 28.8)
        #expect(summary.endedAt.iso8601 == "2026-11-21T08:11:41Z")
    }
}
