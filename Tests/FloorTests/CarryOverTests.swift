import Floor
import Testing
import Workout

/// Sessions carry over (docs/fleet.md): what a taking gateway adopts, when a ride splits, and
/// what a gateway back from the dead learns of its own session.
@Suite struct CarryOverTests {
    static let bike = PlacementTests.bike
    static let home = GatewayPresence(gateway: "floor-1", home: [bike], freeSlots: 3, heard: [bike: -50], holding: [bike])
    static let neighbour = GatewayPresence(gateway: "floor-2", freeSlots: 3, heard: [bike: -70])

    /// floor-2's view: floor-1 held the bike under epoch 4 with session `session`, mirrored
    /// (or not) at 5 s, and went silent; its last will arrives at `willAt`.
    static func neighbourView(session: String, mirrored: MirroredCheckpoint?, willAt: Duration = .seconds(8)) -> FloorView {
        var view = FloorView(gateway: "floor-2")
        view.receive(presence: home, at: .zero)
        view.receive(claim: MachineClaim(machine: bike, holder: "floor-1", epoch: 4, sessionID: session, reason: .home), at: .zero)
        if let mirrored { view.receive(checkpoint: mirrored, at: .seconds(5)) }
        view.receive(presence: .will(gateway: "floor-1"), at: willAt)
        return view
    }

    @Test func theNeighbourAdoptsTheNewestOpenCheckpointWithinTheGrace() throws {
        let snapshot = try SnapshotMaker.ridden()
        let checkpoint = MirroredCheckpoint(machine: Self.bike, holder: "floor-1", epoch: 4, sessionID: snapshot.sessionID, state: .open, snapshot: snapshot)
        let view = Self.neighbourView(session: snapshot.sessionID, mirrored: checkpoint)
        let own = GatewayState(presence: Self.neighbour)
        #expect(view.decide(for: own, at: .seconds(9)) == [.take(machine: Self.bike, epoch: 5, adopt: checkpoint, splitFrom: nil, reason: .adopted)])
        #expect(view.adoptable(machine: Self.bike, at: .seconds(64), disconnectGrace: .seconds(60)) == checkpoint)
        // Past the grace (60 s from the checkpoint's arrival) the session has ended at it.
        #expect(view.adoptable(machine: Self.bike, at: .seconds(65), disconnectGrace: .seconds(60)) == nil)
        #expect(view.decide(for: own, at: .seconds(65)) == [.take(machine: Self.bike, epoch: 5, adopt: nil, splitFrom: nil, reason: .adopted)])
    }

    /// A stand-in died mid-ride; the bike advertises at once, and a far gateway may hear it a
    /// scan before its live home says it does: for a heartbeat after the death was found, the
    /// far gateway leaves the ride to the home.
    @Test func aFarGatewayLeavesADeadStandInsRideToTheHomeForAHeartbeat() throws {
        let snapshot = try SnapshotMaker.ridden()
        let checkpoint = MirroredCheckpoint(machine: Self.bike, holder: "floor-2", epoch: 2, sessionID: snapshot.sessionID, state: .open, snapshot: snapshot)
        var view = FloorView(gateway: "floor-3")
        view.receive(claim: MachineClaim(machine: Self.bike, holder: "floor-1", epoch: 1, reason: .home), at: .zero)
        view.receive(presence: GatewayPresence(gateway: "floor-2", freeSlots: 3, holding: [Self.bike]), at: .zero)
        view.receive(claim: MachineClaim(machine: Self.bike, holder: "floor-2", epoch: 2, sessionID: snapshot.sessionID, reason: .adopted), at: .zero)
        view.receive(checkpoint: checkpoint, at: .seconds(5))
        view.receive(presence: GatewayPresence(gateway: "floor-1", home: [], freeSlots: 3), at: .seconds(7))
        view.receive(presence: .will(gateway: "floor-2"), at: .seconds(8))
        let far = GatewayState(presence: GatewayPresence(gateway: "floor-3", freeSlots: 3, heard: [Self.bike: -75]))
        #expect(view.decide(for: far, at: .seconds(10)) == [])
        #expect(view.decide(for: far, at: .seconds(11)) == [.take(machine: Self.bike, epoch: 3, adopt: checkpoint, splitFrom: nil, reason: .home)])
        // The home says it hears it: it is the home's.
        view.receive(presence: GatewayPresence(gateway: "floor-1", home: [], freeSlots: 3, heard: [Self.bike: -50]), at: .seconds(9))
        #expect(view.decide(for: far, at: .seconds(11)) == [])
    }

    @Test func aFinishedOrOwnCheckpointIsNotAdopted() throws {
        let snapshot = try SnapshotMaker.ridden()
        var finished = MirroredCheckpoint(machine: Self.bike, holder: "floor-1", epoch: 4, sessionID: snapshot.sessionID, state: .finished, endEpoch: 1_764_400_000)
        var view = Self.neighbourView(session: snapshot.sessionID, mirrored: finished)
        #expect(view.adoptable(machine: Self.bike, at: .seconds(9), disconnectGrace: .seconds(60)) == nil)
        #expect(view.decide(for: GatewayState(presence: Self.neighbour), at: .seconds(9)).first == .take(machine: Self.bike, epoch: 5, adopt: nil, splitFrom: nil, reason: .adopted))
        finished.holder = "floor-2"
        finished.state = .open
        finished.snapshot = snapshot
        finished.epoch = 5
        view.receive(checkpoint: finished, at: .seconds(9))
        #expect(view.adoptable(machine: Self.bike, at: .seconds(9), disconnectGrace: .seconds(60)) == nil)
    }

    /// The replaced claim named a session no checkpoint of which reached the broker: the new
    /// session says it split from that one.
    @Test func aRideWithoutAMirroredCheckpointSplits() {
        let view = Self.neighbourView(session: "s-lost", mirrored: nil)
        #expect(
            view.decide(for: GatewayState(presence: Self.neighbour), at: .seconds(9))
                == [.take(machine: Self.bike, epoch: 5, adopt: nil, splitFrom: "s-lost", reason: .adopted)])
    }

    @Test func aReturningGatewayLearnsItsSessionsFate() throws {
        let snapshot = try SnapshotMaker.ridden()
        var view = FloorView(gateway: "floor-1")
        #expect(view.fate(ofSession: "s-1", machine: Self.bike, ownEpoch: 4) == .unknown)
        // Its own claim came back from the broker, nothing newer: not adopted.
        view.receive(claim: MachineClaim(machine: Self.bike, holder: "floor-1", epoch: 4, sessionID: "s-1", reason: .home), at: .zero)
        #expect(view.fate(ofSession: "s-1", machine: Self.bike, ownEpoch: 4) == .notAdopted)
        // A neighbour's newer claim of another session (the ride split): still not adopted.
        view.receive(claim: MachineClaim(machine: Self.bike, holder: "floor-2", epoch: 5, sessionID: "s-2", reason: .adopted), at: .zero)
        #expect(view.fate(ofSession: "s-1", machine: Self.bike, ownEpoch: 4) == .notAdopted)
        // A neighbour's newer checkpoint of the same session: adopted.
        view.receive(
            checkpoint: MirroredCheckpoint(machine: Self.bike, holder: "floor-2", epoch: 5, sessionID: "s-1", state: .open, snapshot: snapshot), at: .zero)
        #expect(view.fate(ofSession: "s-1", machine: Self.bike, ownEpoch: 4) == .adopted(by: "floor-2"))
        // A newer claim naming it proves nothing (its connect may have failed): not adopted.
        var claimOnly = FloorView(gateway: "floor-1")
        claimOnly.receive(claim: MachineClaim(machine: Self.bike, holder: "floor-3", epoch: 9, sessionID: "s-1", reason: .adopted), at: .zero)
        #expect(claimOnly.fate(ofSession: "s-1", machine: Self.bike, ownEpoch: 4) == .notAdopted)
        // Nor is a checkpoint mirrored under that claim since, of another session: the take
        // may have found the ride gone (or its link refused) and started s-9 fresh.
        claimOnly.receive(checkpoint: MirroredCheckpoint(machine: Self.bike, holder: "floor-3", epoch: 9, sessionID: "s-9", state: .open), at: .zero)
        #expect(claimOnly.fate(ofSession: "s-1", machine: Self.bike, ownEpoch: 4) == .notAdopted)
        // That checkpoint's carried list saying floor-3 carried s-1 on from floor-1 is the proof.
        claimOnly.receive(
            checkpoint: MirroredCheckpoint(
                machine: Self.bike, holder: "floor-3", epoch: 9, sessionID: "s-9", state: .open,
                carried: [CarriedSession(sessionID: "s-1", from: "floor-1", by: "floor-3")]), at: .zero)
        #expect(claimOnly.fate(ofSession: "s-1", machine: Self.bike, ownEpoch: 4) == .adopted(by: "floor-3"))
        // Its own checkpoint echoed back is no adoption.
        var own = FloorView(gateway: "floor-1")
        own.receive(checkpoint: MirroredCheckpoint(machine: Self.bike, holder: "floor-1", epoch: 4, sessionID: "s-1", state: .open), at: .zero)
        #expect(own.fate(ofSession: "s-1", machine: Self.bike, ownEpoch: 4) == .notAdopted)
    }

    /// floor-1 died mid-ride on session s-1; floor-2 adopted it, the ride ended, the bike went
    /// home to floor-3 and a new ride s-2 began there. floor-1, back only now, finds s-2 on the
    /// machine's topic: the carried list, copied on by each holder, still says s-1 was carried
    /// on. Without it the fate would be "not adopted" and floor-1 would upload s-1 a second time.
    @Test func aGatewayBackAfterALaterRideStillLearnsItsSessionWasCarriedOn() throws {
        let snapshot = try SnapshotMaker.ridden()
        let adoption = CarriedSession(sessionID: "s-1", from: "floor-1", by: "floor-2")
        var adopted = MirroredCheckpoint(machine: Self.bike, holder: "floor-2", epoch: 5, sessionID: "s-1", state: .open, snapshot: snapshot)
        adopted.carried = CarriedSession.record(adoption, onto: [])
        var floor3 = FloorView(gateway: "floor-3")
        floor3.receive(checkpoint: adopted, at: .zero)
        // floor-3, home again to the bike, mirrors its own ride with the list it found.
        let later = MirroredCheckpoint(
            machine: Self.bike, holder: "floor-3", epoch: 7, sessionID: "s-2", state: .open, snapshot: snapshot, carried: floor3.carried(on: Self.bike))
        var floor1 = FloorView(gateway: "floor-1")
        floor1.receive(claim: MachineClaim(machine: Self.bike, holder: "floor-3", epoch: 7, sessionID: nil, reason: .home), at: .zero)
        floor1.receive(checkpoint: try MirroredCheckpoint(payload: try later.payload()), at: .zero)
        #expect(floor1.fate(ofSession: "s-1", machine: Self.bike, ownEpoch: 0) == .adopted(by: "floor-2"))
        // A session of floor-1's that nobody carried on is restored as before.
        #expect(floor1.fate(ofSession: "s-0", machine: Self.bike, ownEpoch: 0) == .notAdopted)
        // An entry floor-1 itself made (it adopted s-1 from floor-2 before) is no adoption of its own session.
        var own = FloorView(gateway: "floor-2")
        own.receive(checkpoint: later, at: .zero)
        #expect(own.fate(ofSession: "s-1", machine: Self.bike, ownEpoch: 0) == .notAdopted)
    }

    @Test func theCarriedListKeepsEachAdoptionOnceAndOnlyTheNewest() {
        var list: [CarriedSession] = []
        for index in 0..<(CarriedSession.kept + 3) {
            list = CarriedSession.record(CarriedSession(sessionID: "s-\(index)", from: "a", by: "b"), onto: list)
        }
        list = CarriedSession.record(CarriedSession(sessionID: "s-\(CarriedSession.kept + 2)", from: "a", by: "b"), onto: list)
        #expect(list.count == CarriedSession.kept)
        #expect(list.first?.sessionID == "s-3")
        #expect(list.last?.sessionID == "s-\(CarriedSession.kept + 2)")
    }

    /// The split case: floor-1 rode the bike with no broker and died; floor-2 took it with
    /// nothing to adopt. floor-1, back, says in its presence which ride it lost there; floor-2
    /// reads it while floor-1 is live. An open checkpoint of another gateway (too old to adopt)
    /// says the ride ended at it: no split.
    @Test func aReturningGatewayTellsTheRideItLostAndTheHolderReadsIt() throws {
        var view = FloorView(gateway: "floor-2")
        #expect(view.mayContinueUnmirrored(machine: Self.bike))
        var back = Self.home
        back.lost = [Self.bike.lowercased(): "s-lost"]
        let wire = try GatewayPresence(payload: back.payload)
        #expect(wire.lost == back.lost)
        #expect(String(decoding: back.payload, as: UTF8.self).contains(#""lost":{"\#(Self.bike.lowercased())":"s-lost"}"#))
        #expect(!String(decoding: Self.home.payload, as: UTF8.self).contains("lost"))
        #expect(view.lostSession(machine: Self.bike, at: .seconds(1)) == nil)
        view.receive(presence: wire, at: .seconds(1))
        #expect(view.lostSession(machine: Self.bike, at: .seconds(2)) == "s-lost")
        #expect(view.lostSession(machine: Self.bike, at: .seconds(12)) == nil, "floor-1's lease ran out")
        view.receive(presence: .will(gateway: "floor-1"), at: .seconds(3))
        #expect(view.lostSession(machine: Self.bike, at: .seconds(4)) == nil)
        view.receive(checkpoint: MirroredCheckpoint(machine: Self.bike, holder: "floor-1", epoch: 4, sessionID: "s-1", state: .finished), at: .zero)
        #expect(view.mayContinueUnmirrored(machine: Self.bike))
        view.receive(checkpoint: MirroredCheckpoint(machine: Self.bike, holder: "floor-1", epoch: 5, sessionID: "s-2", state: .open), at: .zero)
        #expect(!view.mayContinueUnmirrored(machine: Self.bike))
        #expect(throws: FloorWireError("gateway presence: lost.X is a number, expected a string")) {
            try GatewayPresence(payload: Array(#"{"gateway":"floor-1","online":true,"lost":{"X":3}}"#.utf8))
        }
    }
}
