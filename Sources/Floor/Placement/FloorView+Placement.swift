/// Placement (docs/fleet.md "Placement"): the same function on every gateway's view, so that for
/// any machine at most one gateway decides to take it.
///
/// - candidates(M): live gateways that hear M (or hold it), have a free slot (or hold M), and do
///   not list M in `releasing`.
/// - home(M): the live gateway whose `home` names M and is a candidate (lowest id of several);
///   if none, for `heard_window` after M was given back (or a `heartbeat` after its holder was
///   found gone), the gateway that last held it as home while it has yet to hear it; else the
///   candidate that hears M best (ties by id). A holder found by signal stays home unless
///   another candidate hears M `rssi_margin` dB better.
/// - holder(M): the claim's holder while it is live.
/// - No holder: take iff this gateway is home(M). Held here: give it back between sessions when
///   home(M) is another gateway that can hold it, or at once when this gateway neither has a
///   link to it nor hears it any more (its adapter died: a neighbour may adopt the ride). Held
///   elsewhere: leave it.
extension FloorView {
    /// What this gateway should do now, machine by machine (ordered by machine); keeping a
    /// machine or leaving it to another holder is no decision.
    public func decide(for own: GatewayState, at now: Duration) -> [PlacementDecision] {
        let own = own.keyed()
        var machines = Set(own.presence.heard.keys).union(own.presence.holding)
        for (machine, claim) in claims where claim.message.holder == gateway { machines.insert(machine) }
        let live = livePresences(own: own.presence, at: now)
        return machines.sorted().compactMap { machine in
            decide(machine: machine, own: own, live: live, at: now)
        }
    }

    private func decide(machine: String, own: GatewayState, live: [GatewayPresence], at now: Duration) -> PlacementDecision? {
        guard !own.presence.releasing.contains(machine) else { return nil }
        let name = own.names[machine] ?? names[machine]
        let holder = holder(of: machine, at: now)
        if holder == gateway, !own.presence.holding.contains(machine) {
            // Claimed here but neither linked nor connecting: a claim from before a restart, or
            // a link this gateway lost. Claim it afresh if it is still this gateway's to take.
            guard own.presence.heard[machine] != nil else { return .release(machine: machine, reason: .unheard) }
            guard takingHome(machine, name: name, live: live, at: now) == gateway else { return .release(machine: machine, reason: .home) }
            return .take(
                machine: machine, epoch: nextEpoch(for: machine), adopt: nil, splitFrom: nil,
                reason: reason(taking: machine, name: name, own: own.presence, live: live))
        }
        if holder == gateway {
            return handsBack(machine, name: name, own: own, live: live) ? .release(machine: machine, reason: .home) : nil
        }
        if own.presence.holding.contains(machine) {
            // On a link here while the claim names another (or nobody): the link is the lock.
            // Still connecting: the lock decides who gets the link, and the winner claims again,
            // for the reason it took the machine (a home that won the race against a far
            // gateway's claim stays home; the machine on its link cannot say otherwise).
            guard !own.connecting.contains(machine) else { return nil }
            return .take(
                machine: machine, epoch: nextEpoch(for: machine), adopt: nil, splitFrom: nil,
                reason: takenAs[machine] ?? reason(taking: machine, name: name, own: own.presence, live: live))
        }
        guard holder == nil, takingHome(machine, name: name, live: live, at: now) == gateway else { return nil }
        let adopt = adoptable(machine: machine, at: now, disconnectGrace: rules.disconnectGrace)
        return .take(
            machine: machine, epoch: nextEpoch(for: machine), adopt: adopt, splitFrom: splitFrom(machine, adopting: adopt),
            reason: reason(taking: machine, name: name, own: own.presence, live: live))
    }

    /// `home` when this gateway is the machine's home: its `home` names it, or none does and the
    /// gateway that last held it as home is this one, or cannot hear it any more, or could hold
    /// it and yet is not home(M); `adopted` when it stands in for a home that is gone, full,
    /// handing it over, or named by an allow list.
    private func reason(taking machine: String, name: String?, own: GatewayPresence, live: [GatewayPresence]) -> MachineClaim.Reason {
        if own.namesHome(machine: machine, name: name) { return .home }
        if presences.values.contains(where: { $0.message.gateway != gateway && $0.message.namesHome(machine: machine, name: name) }) { return .adopted }
        guard let home = homes[machine], home != gateway else { return .home }
        guard let presence = live.first(where: { $0.gateway == home }) else { return .adopted }
        // Its home is live. Taking an advertising machine its home does not hear: that is no
        // longer its home. Nor is it when the home hears it and could hold it, and this gateway
        // takes it all the same (it hears it better): standing in for a gateway the rules did
        // not choose, it would give the machine back to it, and that one, not home(M) either,
        // would take it as a stand-in and give it back in turn. Otherwise (the home is full or
        // handing it over, or this is a link's reassertion) stand in.
        let advertising = !own.holding.contains(machine)
        guard advertising, !presence.holding.contains(machine) else { return .adopted }
        if presence.heard[machine] == nil || isCandidate(presence, machine) { return .home }
        // The home hears it and gave it up: released (to a gateway that hears it better, or
        // its link lost), not handed over for a while.
        return presence.releasing.contains(machine) && claims[machine]?.message.reason == .released ? .home : .adopted
    }

    /// home(M) for a machine nobody holds: the candidate whose `home` names it (lowest id), else
    /// the gateway it was just given back to while that one has yet to say it hears it, else
    /// the candidate that hears it best.
    func takingHome(_ machine: String, name: String?, live: [GatewayPresence], at now: Duration) -> String? {
        let candidates = live.filter { isCandidate($0, machine) }
        if let named = candidates.first(where: { $0.namesHome(machine: machine, name: name) }) { return named.gateway }
        switch awaitedHome(machine, live: live, at: now) {
        case .home(let home): return home
        case .unknown: return nil
        case nil: return bestBySignal(machine, among: candidates)
        }
    }

    /// Whom a machine just given back waits for (``awaitedHome(_:live:at:)``).
    enum AwaitedHome: Equatable {
        case home(String)
        /// A stand-in held it for a home this view has not learnt (it started since that home
        /// last claimed the machine): the window runs out before anyone takes it.
        case unknown
    }

    /// The gateway that last held the machine as home, when the machine was released less than
    /// `heard_window` ago (given back between rides) and that gateway is live with a free slot
    /// but has not yet said it hears it. It could not hear the machine while it was on the
    /// stand-in's link (a machine on a link does not advertise), and its presence saying it does
    /// is one scan and one message behind everyone else's: a far gateway that heard the first
    /// advertisement would otherwise take it, claim it as its own home, and keep it, since the
    /// home cannot hear a machine on another's link. A machine with an open session to adopt
    /// waits for nobody.
    ///
    /// A machine whose holder is gone is advertising again at once, and its home may hear it a
    /// scan later than a far gateway: for a `heartbeat` after the holder was found gone (its
    /// last will, or its lease), the live home that has yet to say it hears it is awaited too;
    /// a ride to adopt waits that long at most.
    func awaitedHome(_ machine: String, live: [GatewayPresence], at now: Duration) -> AwaitedHome? {
        guard let claim = claims[machine] else { return nil }
        if let holder = claim.message.holder {
            guard let gone = goneSince(holder, at: now), now - gone < rules.heartbeat, let home = homes[machine], home != holder,
                home != gateway, let presence = live.first(where: { $0.gateway == home }), presence.freeSlots > 0,
                presence.heard[machine] == nil, !presence.holding.contains(machine), !presence.releasing.contains(machine)
            else { return nil }
            return .home(home)
        }
        guard claim.message.reason == .released, now - claim.at < rules.heardWindow,
            adoptable(machine: machine, at: now, disconnectGrace: rules.disconnectGrace) == nil
        else { return nil }
        guard let home = homes[machine] else { return lastTakenAs[machine] == .adopted ? .unknown : nil }
        guard home != gateway, let presence = live.first(where: { $0.gateway == home }), presence.freeSlots > 0, presence.heard[machine] == nil,
            !presence.holding.contains(machine), !presence.releasing.contains(machine)
        else { return nil }
        return .home(home)
    }

    /// Whether this gateway, holding the machine, gives it back: never mid-session; to a gateway
    /// whose `home` names it and can hold it; else to the gateway that last held it as home,
    /// live again with a free slot (it cannot hear the machine while it is on this link); else
    /// to one that hears it `rssi_margin` dB better than this one does.
    private func handsBack(_ machine: String, name: String?, own: GatewayState, live: [GatewayPresence]) -> Bool {
        guard !own.openSessions.contains(machine), !own.presence.namesHome(machine: machine, name: name) else { return false }
        // Another live gateway that could take it (a free slot, not handing it over itself).
        let able = { (other: GatewayPresence) in other.gateway != self.gateway && other.freeSlots > 0 && !other.releasing.contains(machine) }
        // One look at each allow list (this runs for every held machine on every decision):
        // a home named by an allow list that can hold it gets it; one that is live but cannot
        // hold it leaves it with the stand-in rather than have it passed along.
        var namedElsewhere = false
        for other in live where other.gateway != gateway && other.namesHome(machine: machine, name: name) {
            if able(other) { return true }
            namedElsewhere = true
        }
        if namedElsewhere { return false }
        if let home = homes[machine], home != gateway, live.contains(where: { $0.gateway == home && able($0) }) { return true }
        guard let mine = own.presence.heard[machine] else { return false }
        return live.contains { able($0) && ($0.heard[machine] ?? Int.min / 2) > mine + rules.rssiMargin }
    }

    /// candidates(M).
    func isCandidate(_ presence: GatewayPresence, _ machine: String) -> Bool {
        let holds = presence.holding.contains(machine)
        return (presence.heard[machine] != nil || holds) && (presence.freeSlots > 0 || holds) && !presence.releasing.contains(machine)
    }

    /// The best RSSI wins; ties go to the lowest gateway id. A holder without a reading counts
    /// as the weakest.
    func bestBySignal(_ machine: String, among candidates: [GatewayPresence]) -> String? {
        candidates.min { left, right in
            let (l, r) = (left.heard[machine] ?? Int.min / 2, right.heard[machine] ?? Int.min / 2)
            return l != r ? l > r : left.gateway < right.gateway
        }?.gateway
    }

    /// Every live gateway's presence, this one's as it is now, ordered by id.
    func livePresences(own: GatewayPresence, at now: Duration) -> [GatewayPresence] {
        var live = [own]
        for (other, arrived) in presences where other != gateway && isLive(other, at: now) { live.append(arrived.message) }
        return live.sorted { $0.gateway < $1.gateway }
    }
}
