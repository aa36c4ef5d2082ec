import Floor
import Testing

/// The placement rules of docs/fleet.md one by one, each on known answers: the views of two or
/// three gateways that received the same presences and claims.
@Suite struct PlacementTests {
    static let bike = "AA:BB:CC:DD:EE:01"
    static let t0 = Duration.zero
    static let t1 = Duration.seconds(1)

    /// `gateway`'s view after receiving every presence in `others` at `t0`, and `claims`.
    static func view(_ gateway: String, _ others: [GatewayPresence], claims: [MachineClaim] = [], rules: FloorRules = FloorRules()) -> FloorView {
        var view = FloorView(gateway: gateway, rules: rules)
        for presence in others where presence.gateway != gateway { view.receive(presence: presence, at: t0) }
        for claim in claims { view.receive(claim: claim, at: t0) }
        return view
    }

    /// `beat`: a later presence of the same gateway needs a later beat to renew its lease.
    static func presence(
        _ gateway: String, home: [String] = [], slots: Int = 3, heard: [String: Int] = [:], holding: [String] = [], releasing: [String] = [],
        beat: Int = 0
    ) -> GatewayPresence {
        var presence = GatewayPresence(gateway: gateway, home: home, freeSlots: slots, heard: heard, holding: holding, releasing: releasing)
        presence.beat = beat
        return presence
    }

    /// What each gateway decides when every one received all the others' presences.
    static func decisions(_ gateways: [GatewayPresence], claims: [MachineClaim] = [], openSessions: Set<String> = [], at now: Duration = t1)
        -> [String: [PlacementDecision]]
    {
        var result: [String: [PlacementDecision]] = [:]
        for own in gateways {
            let view = view(own.gateway, gateways, claims: claims)
            result[own.gateway] = view.decide(for: GatewayState(presence: own, openSessions: openSessions), at: now)
        }
        return result
    }

    static func take(_ epoch: Int = 1, _ reason: MachineClaim.Reason = .home, machine: String = bike) -> PlacementDecision {
        .take(machine: machine, epoch: epoch, adopt: nil, splitFrom: nil, reason: reason)
    }

    @Test func theAllowListNamesTheHomeWhateverTheSignal() {
        let decisions = Self.decisions([
            Self.presence("floor-1", home: [Self.bike], heard: [Self.bike: -70]),
            Self.presence("floor-2", heard: [Self.bike: -40]),
        ])
        #expect(decisions == ["floor-1": [Self.take()], "floor-2": []])
    }

    @Test func withoutAnAllowListTheBestSignalIsHomeAndTiesGoToTheLowestID() {
        #expect(
            Self.decisions([Self.presence("floor-1", heard: [Self.bike: -60]), Self.presence("floor-2", heard: [Self.bike: -50])])
                == ["floor-1": [], "floor-2": [Self.take()]])
        #expect(
            Self.decisions([Self.presence("floor-2", heard: [Self.bike: -60]), Self.presence("floor-1", heard: [Self.bike: -60])])
                == ["floor-1": [Self.take()], "floor-2": []])
    }

    /// A name in the allow list, matched without case, against the name this gateway hears.
    @Test func aHomeListNamesAMachineByNameOrAddressWithoutCase() {
        let others = [Self.presence("floor-2", heard: [Self.bike: -40])]
        for entry in ["sf-bike-0001", "aa:bb:cc:dd:ee:01"] {
            let own = Self.presence("floor-1", home: [entry], heard: [Self.bike.lowercased(): -70])
            let view = Self.view("floor-1", others)
            #expect(view.decide(for: GatewayState(presence: own, names: [Self.bike: "SF-Bike-0001"]), at: Self.t1) == [Self.take()])
        }
        // The neighbour sees floor-1's list name the bike only once it knows the bike's name.
        let home = Self.presence("floor-1", home: ["SF-Bike-0001"], heard: [Self.bike: -70])
        let neighbour = Self.view("floor-2", [home])
        let own = Self.presence("floor-2", heard: [Self.bike: -40])
        #expect(neighbour.decide(for: GatewayState(presence: own, names: [Self.bike: "sf-BIKE-0001"]), at: Self.t1) == [])
    }

    /// Another gateway takes only when the home cannot: full, deaf to the machine, or gone.
    @Test func aStandInTakesOnlyWhenTheHomeCannot() {
        let full = Self.decisions([
            Self.presence("floor-1", home: [Self.bike], slots: 0, heard: [Self.bike: -50]), Self.presence("floor-2", heard: [Self.bike: -70]),
        ])
        #expect(full == ["floor-1": [], "floor-2": [Self.take(1, .adopted)]])
        let deaf = Self.decisions([Self.presence("floor-1", home: [Self.bike]), Self.presence("floor-2", heard: [Self.bike: -70])])
        #expect(deaf == ["floor-1": [], "floor-2": [Self.take(1, .adopted)]])
        // A stand-in that hears it worse than another stand-in leaves it to that one.
        let three = Self.decisions([
            Self.presence("floor-1", home: [Self.bike]), Self.presence("floor-2", heard: [Self.bike: -70]),
            Self.presence("floor-3", heard: [Self.bike: -60]),
        ])
        #expect(three == ["floor-1": [], "floor-2": [], "floor-3": [Self.take(1, .adopted)]])
    }

    /// The broker hands out a retained presence again on every subscribe (a broker restart
    /// makes every gateway subscribe again), and a sender's client republishes its retained
    /// presence on reconnect: the same presence, beat and all, is no sign of life, or a gateway
    /// that died silently would be live for another lease after each restart.
    @Test func theSamePresenceAgainDoesNotRenewTheLease() {
        var home = Self.presence("floor-1", home: [Self.bike], heard: [Self.bike: -50])
        home.beat = 7
        let own = Self.presence("floor-2", heard: [Self.bike: -70])
        var view = Self.view("floor-2", [home])
        view.receive(presence: home, at: .seconds(8))
        #expect(!view.isLive("floor-1", at: .seconds(10)))
        #expect(view.decide(for: GatewayState(presence: own), at: .seconds(10)) == [Self.take(1, .adopted)])
        home.beat = 8
        view.receive(presence: home, at: .seconds(10))
        #expect(view.isLive("floor-1", at: .seconds(19)))
        #expect(view.decide(for: GatewayState(presence: own), at: .seconds(19)) == [])
    }

    @Test func aGatewayIsGoneByItsLastWillOrItsLease() {
        let home = Self.presence("floor-1", home: [Self.bike], heard: [Self.bike: -50])
        let own = Self.presence("floor-2", heard: [Self.bike: -70])
        var view = Self.view("floor-2", [home])
        #expect(view.decide(for: GatewayState(presence: own), at: .seconds(9)) == [])
        #expect(view.isLive("floor-1", at: .seconds(9)))
        // The lease (10 s on this gateway's clock from the presence's arrival) ran out.
        #expect(!view.isLive("floor-1", at: .seconds(10)))
        #expect(view.decide(for: GatewayState(presence: own), at: .seconds(10)) == [Self.take(1, .adopted)])
        // A fresh presence (its next beat) renews it; the last will ends it at once.
        var fresh = home
        fresh.beat += 1
        view.receive(presence: fresh, at: .seconds(10))
        #expect(view.decide(for: GatewayState(presence: own), at: .seconds(11)) == [])
        view.receive(presence: .will(gateway: "floor-1"), at: .seconds(11))
        #expect(!view.isLive("floor-1", at: .seconds(11)))
        #expect(view.decide(for: GatewayState(presence: own), at: .seconds(11)) == [Self.take(1, .adopted)])
        #expect(view.isLive("floor-2", at: .seconds(1000)))
    }

    /// A claim by a live holder is left alone, even by the home; a dead holder's claim is none.
    @Test func aLiveHolderIsLeftAlone() {
        let claim = MachineClaim(machine: Self.bike, holder: "floor-2", epoch: 4, reason: .adopted)
        let gateways = [
            Self.presence("floor-1", home: [Self.bike], heard: [Self.bike: -50]),
            Self.presence("floor-2", heard: [Self.bike: -70], holding: [Self.bike]),
        ]
        // floor-2 holds it mid-ride: nobody moves.
        #expect(Self.decisions(gateways, claims: [claim], openSessions: [Self.bike]) == ["floor-1": [], "floor-2": []])
        // Between rides floor-2 gives it back home.
        #expect(Self.decisions(gateways, claims: [claim]) == ["floor-1": [], "floor-2": [.release(machine: Self.bike, reason: .home)]])
        // Its holder gone, floor-1 takes it above the dead claim's epoch.
        var view = Self.view("floor-1", [gateways[1]], claims: [claim])
        view.receive(presence: .will(gateway: "floor-2"), at: Self.t1)
        #expect(view.holder(of: Self.bike, at: Self.t1) == nil)
        #expect(view.decide(for: GatewayState(presence: gateways[0]), at: Self.t1) == [Self.take(5)])
    }

    @Test func epochsOnlyGrow() {
        var view = FloorView(gateway: "floor-1")
        #expect(view.nextEpoch(for: Self.bike) == 1)
        let first = view.receive(claim: MachineClaim(machine: Self.bike, holder: "floor-2", epoch: 5, reason: .adopted), at: Self.t0)
        let lower = view.receive(claim: MachineClaim(machine: Self.bike.lowercased(), holder: "floor-1", epoch: 4, reason: .home), at: Self.t1)
        #expect(first && !lower)
        #expect(view.claims[Self.bike]?.message.holder == "floor-2")
        #expect(view.nextEpoch(for: Self.bike.lowercased()) == 6)
        // A tie is the broker's order: the later one stands.
        let tie = view.receive(claim: MachineClaim(machine: Self.bike, holder: "floor-3", epoch: 5, reason: .adopted), at: Self.t1)
        #expect(tie)
        #expect(view.claims[Self.bike]?.message.holder == "floor-3")
        let checkpoint = MirroredCheckpoint(machine: Self.bike, holder: "floor-3", epoch: 7, sessionID: "s", state: .open)
        let newer = view.receive(checkpoint: checkpoint, at: Self.t1)
        #expect(newer)
        #expect(view.nextEpoch(for: Self.bike) == 8)
        var older = checkpoint
        older.epoch = 6
        older.holder = "floor-1"
        let stale = view.receive(checkpoint: older, at: Self.t1)
        #expect(!stale)
        #expect(view.checkpoints[Self.bike]?.message.holder == "floor-3")
    }

    /// A gateway that lists a machine in `releasing` is no candidate for it.
    @Test func releasingExcludes() {
        let decisions = Self.decisions([
            Self.presence("floor-1", home: [Self.bike], heard: [Self.bike: -50], releasing: [Self.bike]),
            Self.presence("floor-2", heard: [Self.bike: -70]),
        ])
        #expect(decisions == ["floor-1": [], "floor-2": [Self.take(1, .adopted)]])
    }

    /// A holder found by signal stays unless another hears the machine `rssi_margin` dB better.
    @Test func hysteresisKeepsTheHolderWithinTheMargin() {
        let claim = MachineClaim(machine: Self.bike, holder: "floor-2", epoch: 2, reason: .home)
        let holder = Self.presence("floor-2", heard: [Self.bike: -60], holding: [Self.bike])
        let within = Self.decisions([Self.presence("floor-1", heard: [Self.bike: -52]), holder], claims: [claim])
        #expect(within == ["floor-1": [], "floor-2": []])
        let beyond = Self.decisions([Self.presence("floor-1", heard: [Self.bike: -48]), holder], claims: [claim])
        #expect(beyond == ["floor-1": [], "floor-2": [.release(machine: Self.bike, reason: .home)]])
    }

    /// A machine on a link stops advertising, so a home back from the dead cannot hear it: the
    /// floor remembers which gateway last held it as home, and the stand-in gives it back
    /// between rides once that gateway is live with a free slot.
    @Test func aReturningHomeGetsItsMachineBackBetweenRides() {
        var view = FloorView(gateway: "floor-2")
        view.receive(presence: Self.presence("floor-1", heard: [Self.bike: -50]), at: Self.t0)
        view.receive(claim: MachineClaim(machine: Self.bike, holder: "floor-1", epoch: 1, reason: .home), at: Self.t0)
        view.receive(presence: .will(gateway: "floor-1"), at: .seconds(5))
        let standIn = Self.presence("floor-2", heard: [Self.bike: -70])
        #expect(view.decide(for: GatewayState(presence: standIn), at: .seconds(6)) == [Self.take(2, .adopted)])
        view.receive(claim: MachineClaim(machine: Self.bike, holder: "floor-2", epoch: 2, reason: .adopted), at: .seconds(6))
        #expect(view.homes[Self.bike] == "floor-1")
        let own = Self.presence("floor-2", holding: [Self.bike])
        #expect(view.decide(for: GatewayState(presence: own), at: .seconds(7)) == [])
        view.receive(presence: Self.presence("floor-1", slots: 0), at: .seconds(100))
        #expect(view.decide(for: GatewayState(presence: own), at: .seconds(101)) == [])
        view.receive(presence: Self.presence("floor-1"), at: .seconds(102))
        #expect(view.decide(for: GatewayState(presence: own, openSessions: [Self.bike]), at: .seconds(103)) == [])
        #expect(view.decide(for: GatewayState(presence: own), at: .seconds(103)) == [.release(machine: Self.bike, reason: .home)])
    }

    /// Released to a live home that then does not hear it, the stand-in takes it back as its
    /// home: no flapping.
    /// (It waits `heard_window` for the home to hear it: see the next test.)
    @Test func aHomeThatNoLongerHearsTheMachineLosesIt() {
        var view = FloorView(gateway: "floor-2")
        view.receive(claim: MachineClaim(machine: Self.bike, holder: "floor-1", epoch: 1, reason: .home), at: Self.t0)
        view.receive(claim: MachineClaim(machine: Self.bike, holder: "floor-2", epoch: 2, reason: .adopted), at: Self.t0)
        view.receive(claim: MachineClaim(machine: Self.bike, holder: nil, epoch: 3, reason: .released), at: Self.t0)
        view.receive(presence: Self.presence("floor-1"), at: Self.t0)
        let own = Self.presence("floor-2", heard: [Self.bike: -70])
        view.receive(presence: Self.presence("floor-1", beat: 1), at: .seconds(14))
        #expect(view.decide(for: GatewayState(presence: own), at: .seconds(15)) == [Self.take(4, .home)])
    }

    /// Given back between rides, the machine advertises again and every gateway in range hears
    /// it on its next scan, but the home's presence saying so comes one message behind its
    /// own scan: a far gateway that heard it first leaves it to the home until the home hears
    /// it or `heard_window` passes. A ride to adopt waits for nobody.
    @Test func aMachineGivenBackWaitsForItsHomeToHearIt() throws {
        var view = FloorView(gateway: "floor-3")
        view.receive(claim: MachineClaim(machine: Self.bike, holder: "floor-1", epoch: 1, reason: .home), at: Self.t0)
        view.receive(claim: MachineClaim(machine: Self.bike, holder: "floor-2", epoch: 2, reason: .adopted), at: Self.t0)
        // The home is live with free slots; it cannot hear the bike on floor-2's link.
        view.receive(presence: Self.presence("floor-1"), at: Self.t0)
        view.receive(claim: MachineClaim(machine: Self.bike, holder: nil, epoch: 3, reason: .released), at: Self.t1)
        view.receive(presence: Self.presence("floor-2", heard: [Self.bike: -62], releasing: [Self.bike]), at: Self.t1)
        let own = GatewayState(presence: Self.presence("floor-3", heard: [Self.bike: -75]))
        #expect(view.decide(for: own, at: .seconds(2)) == [])
        // The home says it hears it (and takes it): floor-3 leaves it.
        var heard = view
        let home = Self.presence("floor-1", heard: [Self.bike: -50])
        heard.receive(presence: home, at: .seconds(2))
        #expect(heard.decide(for: own, at: .seconds(3)) == [])
        // The home has not heard it within heard_window of the release: out of its range now.
        view.receive(presence: Self.presence("floor-1", beat: 1), at: .seconds(12))
        #expect(view.decide(for: own, at: .seconds(15)) == [])
        #expect(view.decide(for: own, at: .seconds(16)) == [Self.take(4, .home)])
        // A gateway that started since the home last claimed it knows only that a stand-in
        // held it: it waits out the window too.
        var fresh = FloorView(gateway: "floor-3")
        fresh.receive(claim: MachineClaim(machine: Self.bike, holder: "floor-2", epoch: 2, reason: .adopted), at: Self.t0)
        fresh.receive(presence: Self.presence("floor-1"), at: Self.t0)
        fresh.receive(claim: MachineClaim(machine: Self.bike, holder: nil, epoch: 3, reason: .released), at: Self.t1)
        #expect(fresh.decide(for: own, at: .seconds(2)) == [])
        #expect(fresh.decide(for: own, at: .seconds(16)) == [Self.take(4, .home)])
        // Released with a ride open on it: nobody waits to adopt it.
        let snapshot = try SnapshotMaker.ridden()
        let open = MirroredCheckpoint(machine: Self.bike, holder: "floor-2", epoch: 2, sessionID: snapshot.sessionID, state: .open, snapshot: snapshot)
        var ride = FloorView(gateway: "floor-3")
        ride.receive(claim: MachineClaim(machine: Self.bike, holder: "floor-1", epoch: 1, reason: .home), at: Self.t0)
        ride.receive(presence: Self.presence("floor-1"), at: Self.t0)
        ride.receive(checkpoint: open, at: Self.t1)
        ride.receive(claim: MachineClaim(machine: Self.bike, holder: nil, epoch: 3, reason: .released), at: Self.t1)
        #expect(ride.decide(for: own, at: .seconds(2)) == [.take(machine: Self.bike, epoch: 4, adopt: open, splitFrom: nil, reason: .home)])
    }

    /// Two gateways claimed the machine as home at once (the same epoch: each view keeps the one
    /// that reached it last), then it was released. The one that hears it best takes it as its
    /// home although the other, remembered as home, hears it and could hold it: as a stand-in
    /// it would give the machine back to a gateway the rules do not choose, which would take it
    /// as a stand-in in turn and give it back: a flap that never settles.
    @Test func aGatewayTakingFromAHomeThatCouldHoldItIsTheHome() {
        var view = FloorView(gateway: "floor-1")
        view.receive(claim: MachineClaim(machine: Self.bike, holder: "floor-1", epoch: 1, reason: .home), at: Self.t0)
        view.receive(claim: MachineClaim(machine: Self.bike, holder: "floor-2", epoch: 1, reason: .home), at: Self.t0)
        view.receive(claim: MachineClaim(machine: Self.bike, holder: nil, epoch: 2, reason: .released), at: Self.t0)
        view.receive(presence: Self.presence("floor-2", heard: [Self.bike: -60]), at: Self.t0)
        let own = Self.presence("floor-1", heard: [Self.bike: -50])
        #expect(view.decide(for: GatewayState(presence: own), at: Self.t1) == [Self.take(3, .home)])
        view.receive(claim: MachineClaim(machine: Self.bike, holder: "floor-1", epoch: 3, reason: .home), at: Self.t1)
        #expect(view.decide(for: GatewayState(presence: Self.presence("floor-1", holding: [Self.bike])), at: Self.t1) == [])
        // The remembered home full, or handing the machine over: a stand-in, as before.
        var full = view
        full.receive(claim: MachineClaim(machine: Self.bike, holder: nil, epoch: 4, reason: .released), at: Self.t1)
        full.receive(claim: MachineClaim(machine: Self.bike, holder: "floor-2", epoch: 5, reason: .home), at: Self.t1)
        full.receive(claim: MachineClaim(machine: Self.bike, holder: nil, epoch: 6, reason: .handover), at: Self.t1)
        full.receive(presence: Self.presence("floor-2", heard: [Self.bike: -60], releasing: [Self.bike]), at: Self.t1)
        #expect(full.decide(for: GatewayState(presence: own), at: Self.t1) == [Self.take(7, .adopted)])
    }

    /// A link's reassertion claims the machine for the reason this gateway took it: a home
    /// whose claim met a far gateway's at the same epoch, and won the link, stays home (and so
    /// gives the machine to nobody after the ride).
    @Test func aReassertionKeepsTheReasonItWasTakenFor() {
        var view = FloorView(gateway: "floor-1")
        view.receive(presence: Self.presence("floor-6", heard: [Self.bike: -75]), at: Self.t0)
        view.receive(claim: MachineClaim(machine: Self.bike, holder: "floor-1", epoch: 1, reason: .home), at: Self.t0)
        view.receive(claim: MachineClaim(machine: Self.bike, holder: "floor-6", epoch: 1, reason: .home), at: Self.t0)
        let linked = Self.presence("floor-1", holding: [Self.bike])
        #expect(view.decide(for: GatewayState(presence: linked), at: Self.t1) == [Self.take(2, .home)])
    }

    /// A home that released the machine because another hears it better (or it lost its link)
    /// gave it up: the gateway taking it is its home, not a stand-in that would give it back.
    @Test func aMachineItsHomeReleasedIsTakenAsHome() {
        var view = FloorView(gateway: "floor-1")
        view.receive(claim: MachineClaim(machine: Self.bike, holder: "floor-2", epoch: 1, reason: .home), at: Self.t0)
        view.receive(claim: MachineClaim(machine: Self.bike, holder: nil, epoch: 2, reason: .released), at: Self.t0)
        view.receive(presence: Self.presence("floor-2", heard: [Self.bike: -60], releasing: [Self.bike]), at: Self.t0)
        let own = Self.presence("floor-1", heard: [Self.bike: -45])
        #expect(view.decide(for: GatewayState(presence: own), at: Self.t1) == [Self.take(3, .home)])
    }

    /// Claimed here, no link and no longer heard (the adapter died): let a neighbour take it.
    @Test func anUnheardClaimIsReleased() {
        let claim = MachineClaim(machine: Self.bike, holder: "floor-1", epoch: 3, reason: .home)
        let view = Self.view("floor-1", [], claims: [claim])
        let deaf = Self.presence("floor-1", home: [Self.bike])
        #expect(view.decide(for: GatewayState(presence: deaf, openSessions: [Self.bike]), at: Self.t1) == [.release(machine: Self.bike, reason: .unheard)])
        let connecting = Self.presence("floor-1", home: [Self.bike], heard: [Self.bike: -50], holding: [Self.bike])
        #expect(view.decide(for: GatewayState(presence: connecting), at: Self.t1) == [])
        // Back from a restart, its old claim still on the broker and the machine heard: claim afresh.
        let restarted = Self.presence("floor-1", home: [Self.bike], heard: [Self.bike: -50])
        #expect(view.decide(for: GatewayState(presence: restarted), at: Self.t1) == [Self.take(4)])
    }

    /// On a link here while the claim names another: the link is the lock, the claim follows it.
    @Test func aLinkReassertsItsClaim() {
        let claim = MachineClaim(machine: Self.bike, holder: "floor-2", epoch: 7, reason: .adopted)
        let other = Self.presence("floor-2", heard: [Self.bike: -70])
        let view = Self.view("floor-1", [other], claims: [claim])
        let own = Self.presence("floor-1", home: [Self.bike], holding: [Self.bike])
        #expect(view.decide(for: GatewayState(presence: own), at: Self.t1) == [Self.take(8)])
        var releasing = own
        releasing.releasing = [Self.bike]
        #expect(view.decide(for: GatewayState(presence: releasing), at: Self.t1) == [])
        // Still connecting, it leaves the race to the link lock.
        #expect(view.decide(for: GatewayState(presence: own, connecting: [Self.bike]), at: Self.t1) == [])
    }
}
