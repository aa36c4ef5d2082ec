import FTMS
import Testing
import Workout

/// The console's own Fitness Machine Status events (contract §5).
@Suite("Fitness Machine Status")
struct StatusEventTests {
    static let riding: [DataField: Double] = [.instantaneousCadence: 80, .instantaneousPower: 160, .totalDistance: 0]
    static let still: [DataField: Double] = [.instantaneousCadence: 0, .instantaneousPower: 0]

    /// "Started or resumed by the user" opens a session before any movement; movement time
    /// counts only from the first pedal stroke.
    @Test func startedByTheUserOpensASession() throws {
        var ride = Ride()
        ride.status(0, .startedOrResumedByUser)
        #expect(ride.timeline == ["started"])
        for second in 3...80 { ride.sample(Double(second), Self.riding.merging([.totalDistance: 8 * Double(second)]) { $1 }) }
        ride.status(81, .stoppedOrPausedByUser, [1])
        #expect(ride.timeline == ["started", "finished"])
        let summary = try #require(ride.finished.first)
        // Samples 3…80 hold 1 s each: 78 s of movement within 81 s.
        #expect(summary.duration == 78)
        #expect(summary.detail.elapsed == 81)
        #expect(summary.detail.paused == 3)
        #expect(summary.totalDistance == 616)
    }

    /// A console pause holds while the flywheel spins down; movement after stillness, or the
    /// console's resume, resumes.
    @Test func aConsolePauseWaitsForStillness() {
        var ride = Ride()
        for second in 0...10 { ride.sample(Double(second), Self.riding) }
        ride.status(10.5, .stoppedOrPausedByUser, [2])
        ride.sample(11, Self.riding)  // spinning down: still paused
        ride.sample(12, Self.riding)
        #expect(ride.timeline == ["started", "paused:machine"])
        ride.sample(13, Self.still)
        ride.sample(14, Self.riding)  // moving again after stillness
        #expect(ride.timeline == ["started", "paused:machine", "resumed"])
        ride.status(15, .stoppedOrPausedByUser, [2])
        ride.sample(16, Self.riding)
        ride.status(17, .startedOrResumedByUser)
        #expect(ride.timeline == ["started", "paused:machine", "resumed", "paused:machine", "resumed"])
    }

    /// Stop without its parameter is read as a pause: ending a session on a malformed event
    /// would lose the rider's workout, while a pause that lasts is ended by the idle timer.
    @Test func stopWithoutParameterPauses() {
        var ride = Ride()
        for second in 0...10 { ride.sample(Double(second), Self.riding) }
        ride.status(11, .stoppedOrPausedByUser)
        #expect(ride.timeline == ["started", "paused:machine"])
    }

    /// After a console stop, the wheel still turning does not open a session nobody rides;
    /// once the machine is seen still, the next movement does.
    @Test(arguments: [(StatusOpCode.reset, EndReason.reset), (.stoppedBySafetyKey, .safetyKey), (.stoppedOrPausedByUser, .stopped)])
    func endsThenWaitsForStillness(opCode: StatusOpCode, reason: EndReason) {
        var ride = Ride()
        for second in 0...100 { ride.sample(Double(second), Self.riding.merging([.totalDistance: 8 * Double(second)]) { $1 }) }
        ride.status(100.5, opCode, opCode == .stoppedOrPausedByUser ? [1] : [])
        ride.sample(101, Self.riding)
        ride.sample(102, Self.riding)
        #expect(ride.timeline == ["started", "finished"])
        #expect(ride.finished.first?.detail.endReason == reason)
        ride.sample(103, Self.still)
        ride.sample(104, Self.riding)
        #expect(ride.timeline == ["started", "finished", "started"])
    }

    /// Events the lifecycle does not use (targets changed, control lost) change nothing.
    @Test func otherStatusEventsAreIgnored() {
        var ride = Ride()
        for second in 0...10 { ride.sample(Double(second), Self.riding) }
        ride.status(10.2, .targetPowerChanged, [200])
        ride.status(10.4, .controlPermissionLost)
        ride.sample(11, Self.riding)
        #expect(ride.timeline == ["started"])
    }
}
