import FTMS
import Testing
import Workout

/// Counters wrap at their wire width: uint16 energy, elapsed time and strokes, uint24
/// distance. A wrap is a rise, never a fall back.
@Suite("Counter wrap-around")
struct WrapAroundTests {
    /// Energy from 65 500 kcal rising 1 kcal every 2 s for 200 s wraps past 65 535 to 64;
    /// elapsed time from 65 400 s wraps to 64; distance from 16 777 000 m rising 10 m a
    /// second wraps past 16 777 215. One session, 100 kcal and 2000 m.
    @Test func uint16AndUint24CountersWrap() throws {
        var ride = Ride()
        for second in 0...200 {
            ride.sample(Double(second), [
                .instantaneousCadence: 70, .instantaneousPower: 120,
                .totalEnergy: Double((65_500 + second / 2) % 65_536),
                .elapsedTime: Double((65_400 + second) % 65_536),
                .totalDistance: Double((16_777_000 + 10 * second) % 16_777_216),
            ])
        }
        ride.close(201)
        #expect(ride.timeline == ["started", "finished"])
        let summary = try #require(ride.finished.first)
        #expect(summary.totalEnergy == 100)
        #expect(summary.totalDistance == 2000)
        #expect(summary.detail.energyMethod == .counter)
    }

    /// A rower's uint16 stroke count wrapping is strokes rowed, not a reset.
    @Test func strokeCountWraps() throws {
        var ride = Ride(Ride.rower)
        for second in 0...150 {
            ride.sample(Double(second), [.strokeRate: 30, .strokeCount: Double((65_500 + second / 2) % 65_536), .totalDistance: 5 * Double(second)])
        }
        ride.close(151)
        #expect(ride.timeline == ["started", "finished"])
        #expect(ride.finished.first?.detail.strokeCount == 75)
    }
}
