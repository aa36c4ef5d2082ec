import DeterministicRandom
import FTMS
import Foundation
import Testing
import Workout

/// Issue 37: a gateway carries on a session another gateway was riding, from the checkpoint
/// that gateway mirrored, on its own clock. Known answers: one session, the first gateway's id,
/// the machine's counter delta as its distance; a checkpoint older than the grace ends the
/// session at it; and neither gateway's wall clock matters.
@Suite("Adopting another gateway's session")
struct AdoptionTests {
    /// One gateway's clocks, read at real time `t` seconds after the ride began: its boot's
    /// monotonic clock is `boot` seconds along at `t = 0`, and its wall clock says `wall` seconds
    /// after `Ride.origin` then (true or not).
    struct GatewayClock {
        var boot: Double
        var wall: Double
        var wallIsTrue: Bool
        var bootID: BootID

        func time(_ t: Double) -> Timestamp {
            Timestamp(
                monotonic: .milliseconds(Int64(((boot + t) * 1000).rounded())),
                wall: Ride.origin.adding(nanoseconds: Int64(((wall + t) * 1e9).rounded())),
                wallIsTrue: wallIsTrue, boot: bootID)
        }

        /// This clock's monotonic instant at real time `t`.
        func monotonic(_ t: Double) -> Duration { time(t).monotonic }
    }

    static let trueA = GatewayClock(boot: 3_600, wall: 0, wallIsTrue: true, bootID: BootID("boot-a"))
    static let trueB = GatewayClock(boot: 90_000, wall: 0, wallIsTrue: true, bootID: BootID("boot-b"))

    /// Gateway A's engine from 0 to 40 s, the bike ridden at 8.5 m/s on counters that began at
    /// 12 000 m; A mirrors its checkpoint at 40 s (through JSON, as the broker carries it) and
    /// dies at 41 s.
    static func rideOnA(_ clock: GatewayClock) throws -> (snapshot: SessionSnapshot, events: [SessionEvent]) {
        var engine = SessionEngine(machine: Ride.bike, ids: RandomSessionIDs(using: SplitMix64(seed: 1)))
        var events: [SessionEvent] = []
        func ride(_ second: Int) {
            let record = DataRecord(kind: .indoorBikeData, values: GatewayOutageTests.values(GatewayOutageTests.riding(Double(second))))
            events += engine.ingest(record, at: clock.time(Double(second)))
        }
        for second in 0...40 { ride(second) }
        let snapshot = try #require(engine.snapshot(at: clock.time(40)))
        // The last sample A took, never mirrored.
        ride(41)
        return (try JSONDecoder().decode(SessionSnapshot.self, from: JSONEncoder().encode(snapshot)), events)
    }

    /// Gateway B: the checkpoint arrived at 40 s (the broker is a hop away); B takes the bike at `takenAt`, connects
    /// 1.5 s later and the bike is ridden on it to `end`, where B stops.
    static func rideOnB(
        _ snapshot: SessionSnapshot, _ clock: GatewayClock, takenAt: Double, end: Double = 100
    ) -> [SessionEvent] {
        var (engine, first) = SessionEngine.adopting(
            snapshot, arrivedAt: clock.monotonic(40), ids: RandomSessionIDs(using: SplitMix64(seed: 2)), at: clock.time(takenAt))
        var events = Array(first)
        events += engine.connected(at: clock.time(takenAt + 1.5))
        for second in Int(takenAt + 2)...Int(end) {
            let record = DataRecord(kind: .indoorBikeData, values: GatewayOutageTests.values(GatewayOutageTests.riding(Double(second))))
            events += engine.ingest(record, at: clock.time(Double(second)))
        }
        events += engine.close(at: clock.time(end), reason: .shutdown)
        return events
    }

    /// A's half and B's half, the bike without a holder from 41 s to 61.5 s: one session, A's
    /// id, its distance the machine's counter delta (12 850 − 12 000 m), the gap counted as
    /// movement since the counters say the rider rode it.
    @Test func aRideCarriedOnByAnotherGatewayIsOneSession() throws {
        let (snapshot, onA) = try Self.rideOnA(Self.trueA)
        #expect(onA.map(\.state.description) == ["started"])
        let onB = Self.rideOnB(snapshot, Self.trueB, takenAt: 60)
        #expect(onB.map(\.state.description) == ["paused", "resumed", "finished"])
        #expect(onB.allSatisfy { $0.sessionID == snapshot.sessionID })
        let summary = try #require(onB.last?.summary)
        #expect(summary.sessionID == onA.first?.sessionID)
        #expect(summary.totalDistance == 850)
        #expect(summary.totalEnergy == 10)
        #expect(summary.duration == 100)
        #expect(summary.detail.elapsed == 100)
        #expect(summary.detail.averagePower == 180)
        // Dated by the true clocks: the start A gave it, the end 100 s later.
        #expect(summary.startedAt.iso8601 == "2026-11-21T08:00:00Z")
        #expect(summary.endedAt.iso8601 == "2026-11-21T08:01:40Z")
    }

    /// The checkpoint arrived 61 s before B takes the bike (the grace is 60 s): the session
    /// ends at its checkpoint, A's id and A's distance; what B then rides is a new session.
    @Test func aCheckpointOlderThanTheGraceEndsTheSessionAtIt() throws {
        let (snapshot, _) = try Self.rideOnA(Self.trueA)
        let onB = Self.rideOnB(snapshot, Self.trueB, takenAt: 101, end: 200)
        #expect(onB.map(\.state.description) == ["paused", "finished", "started", "finished"])
        let closed = try #require(onB.compactMap(\.summary).first)
        #expect(closed.sessionID == snapshot.sessionID)
        #expect(closed.detail.endReason == .disconnected)
        #expect(closed.totalDistance == 340)
        #expect(closed.duration == 40)
        #expect(closed.endedAt.iso8601 == "2026-11-21T08:00:40Z")
        let next = try #require(onB.compactMap(\.summary).last)
        #expect(next.sessionID != snapshot.sessionID)
    }

    /// Just within the grace (arrived 57 s before the take, connected 1.5 s later): carried on.
    @Test func aCheckpointJustWithinTheGraceIsCarriedOn() throws {
        let (snapshot, _) = try Self.rideOnA(Self.trueA)
        let onB = Self.rideOnB(snapshot, Self.trueB, takenAt: 97, end: 160)
        #expect(onB.map(\.state.description) == ["paused", "resumed", "finished"])
        let summary = try #require(onB.last?.summary)
        #expect(summary.sessionID == snapshot.sessionID)
        #expect(summary.totalDistance == 1_360)
    }

    /// Wall clocks that are not true, far apart and one behind the other, on either box, and
    /// boots whose monotonic clocks are hours apart: the same session, the same figures as
    /// with true clocks. Only the arrival on B's monotonic clock measures the gap.
    @Test(arguments: [
        (GatewayClock(boot: 3_600, wall: -836_000_000, wallIsTrue: false, bootID: BootID("boot-a")), trueB),
        (trueA, GatewayClock(boot: 90_000, wall: -836_000_000, wallIsTrue: false, bootID: BootID("boot-b"))),
        (GatewayClock(boot: 3_600, wall: 5_000_000, wallIsTrue: false, bootID: BootID("boot-a")),
         GatewayClock(boot: 12, wall: -836_000_000, wallIsTrue: false, bootID: BootID("boot-b"))),
        // The same boot id on both (two boxes cannot share one, but the adopter must not read it).
        (GatewayClock(boot: 3_600, wall: 0, wallIsTrue: false, bootID: BootID("boot-a")),
         GatewayClock(boot: 3_500, wall: 7_200, wallIsTrue: false, bootID: BootID("boot-a"))),
    ])
    func wallClocksThatAreNotTrueChangeNothing(a: GatewayClock, b: GatewayClock) throws {
        let (trueSnapshot, _) = try Self.rideOnA(Self.trueA)
        let reference = try #require(Self.rideOnB(trueSnapshot, Self.trueB, takenAt: 60).last?.summary)
        let (snapshot, _) = try Self.rideOnA(a)
        let onB = Self.rideOnB(snapshot, b, takenAt: 60)
        #expect(onB.map(\.state.description) == ["paused", "resumed", "finished"])
        let summary = try #require(onB.last?.summary)
        #expect(summary.sessionID == reference.sessionID)
        #expect(summary.totalDistance == reference.totalDistance)
        #expect(summary.totalEnergy == reference.totalEnergy)
        #expect(summary.duration == reference.duration)
        #expect(summary.detail.elapsed == reference.detail.elapsed)
        #expect(summary.detail.endReason == reference.detail.endReason)
        #expect(summary.detail.averagePower == reference.detail.averagePower)
        #expect(summary.endedAt.millisecondsSince1970 - summary.startedAt.millisecondsSince1970 == 100_000)
    }

    /// The adopter took the machine before the checkpoint it holds says it was saved, on its
    /// own clock (a checkpoint whose arrival is later than the take): no negative downtime, the
    /// session paused at the take and carried on.
    @Test func anArrivalAfterTheTakeIsNoNegativeGap() throws {
        let (snapshot, _) = try Self.rideOnA(Self.trueA)
        let (engine, events) = SessionEngine.adopting(
            snapshot, arrivedAt: Self.trueB.monotonic(50), ids: RandomSessionIDs(using: SplitMix64(seed: 2)), at: Self.trueB.time(45))
        #expect(events.map(\.state.description) == ["paused"])
        #expect(engine.openSessionID == snapshot.sessionID)
        #expect(events.first?.progress.elapsedMilliseconds == 40_000)
    }

    /// A gateway that took a machine whose last holder's session it could not carry on (no
    /// checkpoint of it reached the broker): its next session says which session it split from,
    /// on every event and in its checkpoints (so a restart keeps it), and only that session.
    @Test func theNextSessionSaysWhatItSplitFrom() throws {
        var ride = Ride(rules: GatewayOutageTests.shortIdle)
        ride.engine.splitting(from: "4b1d6c2e-0000-4000-8000-00000000000a")
        for second in 0...40 { ride.sample(Double(second), GatewayOutageTests.riding(Double(second))) }
        let snapshot = try #require(ride.engine.snapshot(at: Ride.time(40)))
        let stored = try JSONDecoder().decode(SessionSnapshot.self, from: JSONEncoder().encode(snapshot))
        let (restored, _) = SessionEngine.restoring(
            stored, rules: GatewayOutageTests.shortIdle, ids: RandomSessionIDs(using: SplitMix64(seed: 4)), at: Ride.time(45))
        #expect(restored.progress(at: Ride.time(45))?.splitFrom == "4b1d6c2e-0000-4000-8000-00000000000a")
        ride.disconnect(41)
        ride.tick(120)
        ride.connect(121)
        for second in 122...200 { ride.sample(Double(second), GatewayOutageTests.riding(Double(second))) }
        ride.close(200)
        #expect(ride.timeline == ["started", "paused:disconnected", "dropped:too_short", "started", "finished"])
        let first = ride.events.prefix(3)
        #expect(first.allSatisfy { $0.progress.splitFrom == "4b1d6c2e-0000-4000-8000-00000000000a" })
        #expect(ride.events.suffix(2).allSatisfy { $0.progress.splitFrom == nil })
    }

    /// The open session told that it split (the lost ride's gateway said so only once it was
    /// back): it says so from then on, in its checkpoints and to its end; a session that said
    /// it split already keeps what it said.
    @Test func anOpenSessionToldItSplitSaysSoFromThenOn() throws {
        var ride = Ride(rules: GatewayOutageTests.shortIdle)
        for second in 0...20 { ride.sample(Double(second), GatewayOutageTests.riding(Double(second))) }
        ride.engine.splitting(from: "4b1d6c2e-0000-4000-8000-00000000000a")
        ride.engine.splitting(from: "4b1d6c2e-0000-4000-8000-00000000000b")
        for second in 21...90 { ride.sample(Double(second), GatewayOutageTests.riding(Double(second))) }
        let snapshot = try #require(ride.engine.snapshot(at: Ride.time(90)))
        let stored = try JSONDecoder().decode(SessionSnapshot.self, from: JSONEncoder().encode(snapshot))
        let (restored, _) = SessionEngine.restoring(
            stored, rules: GatewayOutageTests.shortIdle, ids: RandomSessionIDs(using: SplitMix64(seed: 4)), at: Ride.time(95))
        #expect(restored.progress(at: Ride.time(95))?.splitFrom == "4b1d6c2e-0000-4000-8000-00000000000a")
        ride.close(90)
        #expect(ride.timeline == ["started", "finished"])
        #expect(ride.events.first?.progress.splitFrom == nil)
        #expect(ride.events.last?.progress.splitFrom == "4b1d6c2e-0000-4000-8000-00000000000a")
    }

    /// A retained checkpoint delivered only when B subscribed, 80 s after A saved it: its
    /// arrival says nothing of its age, but both wall clocks are true and say it is older than
    /// the grace, so the session ends at it rather than being carried on across a gap nobody
    /// measured. With either clock not true, only the arrival can count.
    @Test func trueClocksOnBothSidesSayARetainedCheckpointsAge() throws {
        let (snapshot, _) = try Self.rideOnA(Self.trueA)
        let (_, events) = SessionEngine.adopting(
            snapshot, arrivedAt: Self.trueB.monotonic(120), ids: RandomSessionIDs(using: SplitMix64(seed: 2)), at: Self.trueB.time(121))
        #expect(events.map(\.state.description) == ["paused", "finished"])
        #expect(events.last?.summary?.totalDistance == 340)
        var untrue = Self.trueB
        untrue.wallIsTrue = false
        let (engine, carried) = SessionEngine.adopting(
            snapshot, arrivedAt: untrue.monotonic(120), ids: RandomSessionIDs(using: SplitMix64(seed: 2)), at: untrue.time(121))
        #expect(carried.map(\.state.description) == ["paused"])
        #expect(engine.openSessionID == snapshot.sessionID)
    }
}
