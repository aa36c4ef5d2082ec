import FTMS
import Testing
import Workout

/// contract §5: a disconnect that outlasts the grace period ends the session; a shorter one
/// does not.
@Suite("Disconnects")
struct ConnectionTests {
    mutating func ride(until second: Int, into ride: inout Ride) {
        for s in 0...second {
            ride.sample(Double(s), [.instantaneousCadence: 90, .instantaneousPower: 200, .totalDistance: 9 * Double(s)])
        }
    }

    /// Down at 100.5 s, back at 150 s (49.5 s < 60 s), riding from 151 s: one session.
    @Test mutating func withinGraceContinues() throws {
        var ride = Ride()
        self.ride(until: 100, into: &ride)
        ride.disconnect(100.5)
        ride.tick(130)
        ride.connect(150)
        for s in 151...200 { ride.sample(Double(s), [.instantaneousCadence: 90, .instantaneousPower: 200, .totalDistance: 9 * Double(s)]) }
        ride.close(201)
        #expect(ride.timeline == ["started", "paused:disconnected", "resumed", "finished"])
        #expect(ride.elapsedMilliseconds == [0, 100_500, 151_000, 201_000])
        let summary = try #require(ride.finished.first)
        #expect(summary.totalDistance == 1800)
        #expect(summary.detail.endReason == .endOfCapture)
    }

    /// Down at 100.5 s and never back: ended when the grace ran out at 160.5 s, by a tick.
    /// The summary ends at the last movement (100.5 s), not when the grace ran out.
    @Test mutating func beyondGraceEnds() throws {
        var ride = Ride()
        self.ride(until: 100, into: &ride)
        ride.disconnect(100.5)
        ride.tick(160)
        #expect(ride.timeline == ["started", "paused:disconnected"])
        ride.tick(161)
        #expect(ride.timeline == ["started", "paused:disconnected", "finished"])
        #expect(ride.elapsedMilliseconds.last == 160_500)
        let summary = try #require(ride.finished.first)
        #expect(summary.detail.endReason == .disconnected)
        #expect(summary.detail.elapsed == 101)
        #expect(summary.duration == 101)
        #expect(summary.endedAt.iso8601 == "2026-11-21T08:01:41Z")
    }

    /// Back after the grace: the old session is over before the new sample starts another.
    @Test mutating func aSampleAfterTheGraceEndsThenStarts() {
        var ride = Ride()
        self.ride(until: 100, into: &ride)
        ride.disconnect(100.5)
        ride.connect(170)
        ride.sample(171, [.instantaneousCadence: 90])
        #expect(ride.timeline == ["started", "paused:disconnected", "finished", "started"])
        #expect(ride.finished.first?.detail.endReason == .disconnected)
    }
}
