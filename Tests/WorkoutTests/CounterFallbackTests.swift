import FTMS
import Testing
import Workout

/// contract §5: counters falling back mean a new rider; a reconnect that carries on the same
/// counters does not.
@Suite("Counters falling back")
struct CounterFallbackTests {
    /// Rider A rows 0…120 s at 24 spm and 180 W: 4 m a second, ⌊0.4·t⌋ strokes. At 121 s the
    /// console is reset and rider B rows on: distance 4·(t − 121), strokes ⌊0.4·(t − 121)⌋,
    /// elapsed t − 121. The 121 s sample is one suspect; the 122 s sample confirms it, so A
    /// ends there: samples 0…121 held 1 s each, 122 s; 480 m and 48 strokes (the last good
    /// counters, at 120 s). B starts at 122 s from 4 m and 0 strokes and is closed at 301 s:
    /// 179 s, 716 − 4 = 712 m, ⌊0.4·179⌋ = 71 strokes.
    @Test func aResetConsoleSplitsTheSession() throws {
        var ride = Ride(Ride.rower)
        for second in 0...300 {
            let t = Double(second)
            let b = t - 121
            ride.sample(t, [
                .strokeRate: 24, .instantaneousPower: 180,
                .totalDistance: second <= 120 ? 4 * t : 4 * b,
                .strokeCount: (second <= 120 ? 0.4 * t : 0.4 * b).rounded(.down),
                .elapsedTime: second <= 120 ? t : b,
            ])
        }
        ride.close(301)
        #expect(ride.timeline == ["started", "finished", "started", "finished"])
        #expect(ride.elapsedMilliseconds == [0, 122_000, 0, 179_000])
        let (a, b) = (ride.finished[0], ride.finished[1])
        #expect(a.sessionID != b.sessionID)
        #expect(a.detail.endReason == .counterFallback)
        #expect(a.duration == 122)
        #expect(a.totalDistance == 480)
        #expect(a.detail.strokeCount == 48)
        #expect(a.detail.sampleCount == 122)
        #expect(b.startedAt.iso8601 == "2026-11-21T08:02:02Z")
        #expect(b.duration == 179)
        #expect(b.totalDistance == 712)
        #expect(b.detail.strokeCount == 71)
        #expect(b.detail.endReason == .endOfCapture)
        // Rower figures: 24 spm; pace 500 m · 179 s / 712 m = 125.7 s per 500 m.
        #expect(b.detail.averageStrokeRate == 24)
        #expect(b.detail.averagePace == 125.7)
        // No speed field on a rower: average speed is distance over moving time, 14.32 km/h.
        #expect(b.detail.averageSpeed == 14.32)
        // No energy counter: 180 W · 179 s / 4184 / 0.25 = 30.8 → 31 kcal.
        #expect(b.totalEnergy == 31)
    }

    /// One packet of zeros in the middle of a ride is a glitch, not a new rider: the next
    /// packet carries on, so the session neither splits nor loses or gains distance.
    @Test func oneBadPacketIsIgnored() throws {
        var ride = Ride()
        for second in 0...100 {
            let t = Double(second)
            let glitch = second == 50
            ride.sample(t, [
                .instantaneousCadence: 90, .instantaneousSpeed: 30,
                .totalDistance: glitch ? 0 : 500 + 8 * t, .totalEnergy: glitch ? 0 : 20 + (t / 10).rounded(.down),
                .elapsedTime: glitch ? 0 : t,
            ])
        }
        // And one absurd leap forward (a corrupt uint24) is not 16 km of riding either.
        ride.sample(101, [.instantaneousCadence: 90, .totalDistance: 16_000_000])
        ride.sample(102, [.instantaneousCadence: 90, .totalDistance: 500 + 8 * 102])
        ride.close(103)
        #expect(ride.timeline == ["started", "finished"])
        let summary = try #require(ride.finished.first)
        #expect(summary.totalDistance == 816)
        #expect(summary.totalEnergy == 10)
    }

    /// A drop of the link mid-ride: the machine keeps counting while the rider rides on, the
    /// link returns 20 s later with larger counters. One session, and what was ridden while
    /// disconnected counts (the console measured it): its distance, and, since the counters
    /// say the rider rode through it, its time as movement (contract §5).
    @Test func aReconnectThatContinuesTheCountersIsOneSession() throws {
        var ride = Ride()
        for second in 0...100 {
            ride.sample(Double(second), [.instantaneousCadence: 90, .instantaneousPower: 150, .totalDistance: 8 * Double(second), .totalEnergy: Double(second / 10)])
        }
        ride.disconnect(100.5)
        ride.connect(120)
        for second in 121...200 {
            ride.sample(Double(second), [.instantaneousCadence: 90, .instantaneousPower: 150, .totalDistance: 8 * Double(second), .totalEnergy: Double(second / 10)])
        }
        ride.close(201)
        #expect(ride.timeline == ["started", "paused:disconnected", "resumed", "finished"])
        let summary = try #require(ride.finished.first)
        #expect(summary.totalDistance == 1600)
        #expect(summary.totalEnergy == 20)
        // 100.5 s before the drop, the 20.5 s gap ridden through, 80 s after.
        #expect(summary.duration == 201)
        #expect(summary.detail.elapsed == 201)
        #expect(summary.detail.paused == 0)
    }

    /// The same drop, but the console restarted while the link was down: a new rider.
    @Test func aReconnectWithRestartedCountersSplits() throws {
        var ride = Ride()
        for second in 0...100 {
            ride.sample(Double(second), [.instantaneousCadence: 90, .totalDistance: 8 * Double(second), .totalEnergy: Double(second / 10)])
        }
        ride.disconnect(100.5)
        ride.connect(120)
        for second in 121...200 {
            let t = Double(second - 121)
            ride.sample(Double(second), [.instantaneousCadence: 90, .totalDistance: 8 * t, .totalEnergy: t / 10])
        }
        ride.close(201)
        #expect(ride.timeline == ["started", "paused:disconnected", "resumed", "finished", "started", "finished"])
        #expect(ride.finished[0].detail.endReason == .counterFallback)
        #expect(ride.finished[0].totalDistance == 800)
        // B starts at 122 s from 8 m and ends with 8·79 = 632 m: 624 m.
        #expect(ride.finished[1].totalDistance == 624)
    }
}
