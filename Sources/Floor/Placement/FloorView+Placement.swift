/// Placement (docs/fleet.md "Placement"): the same function on every gateway's view, so that for
/// any machine at most one gateway decides to take it.
///
/// - candidates(M): live gateways that hear M (or hold it), have a free slot (or hold M), and do
///   not list M in `releasing`.
/// - home(M): the live gateway whose `home` names M and is a candidate (lowest id of several);
///   if none, the candidate that hears M best (ties by id). A holder found by signal stays home
///   unless another candidate hears M `rssi_margin` dB better.
/// - holder(M): the claim's holder while it is live.
/// - No holder: take iff this gateway is home(M). Held here: give it back between sessions when
///   home(M) is another gateway that can hold it. Held elsewhere: leave it.
extension FloorView {
    /// What this gateway should do now, machine by machine (ordered by machine); keeping a
    /// machine or leaving it to another holder is no decision.
    public func decide(for own: GatewayState, at now: Duration) -> [PlacementDecision] {
        let own = GatewayState(presence: own.presence.keyed(), names: Dictionary(own.names.map { (FloorTopics.machineKey($0.key), $0.value) }, uniquingKeysWith: { first, _ in first }), openSessions: Set(own.openSessions.map(FloorTopics.machineKey)))
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
        if holder == gateway {
            return handsBack(machine, name: name, own: own, live: live) ? .release(machine: machine, reason: .home) : nil
        }
        if own.presence.holding.contains(machine) {
            // On a link here while the claim names another (or nobody): the link is the lock.
            let home = takingHome(machine, name: name, live: live)
            return .take(machine: machine, epoch: nextEpoch(for: machine), adopt: nil, splitFrom: nil, reason: home == gateway ? .home : .adopted)
        }
        guard holder == nil, takingHome(machine, name: name, live: live) == gateway else { return nil }
        let adopt = adoptable(machine: machine, at: now, disconnectGrace: rules.disconnectGrace)
        return .take(
            machine: machine, epoch: nextEpoch(for: machine), adopt: adopt, splitFrom: splitFrom(machine, adopting: adopt),
            reason: live.contains { $0.namesHome(machine: machine, name: name) } && !own.presence.namesHome(machine: machine, name: name) ? .adopted
                : bestBySignal(machine, among: live.filter { isCandidate($0, machine) }) == gateway || own.presence.namesHome(machine: machine, name: name) ? .home : .adopted)
    }

    /// home(M) for a machine nobody holds: the candidate whose `home` names it (lowest id), else
    /// the candidate that hears it best.
    func takingHome(_ machine: String, name: String?, live: [GatewayPresence]) -> String? {
        let candidates = live.filter { isCandidate($0, machine) }
        if let named = candidates.first(where: { $0.namesHome(machine: machine, name: name) }) { return named.gateway }
        return bestBySignal(machine, among: candidates)
    }

    /// Whether this gateway, holding the machine, gives it back: never mid-session; to a gateway
    /// whose `home` names it and can hold it; else to one that hears it `rssi_margin` dB better.
    /// A gateway can hear a machine on another's link only from before (it stops advertising),
    /// so here the RSSI a gateway last reported counts too.
    private func handsBack(_ machine: String, name: String?, own: GatewayState, live: [GatewayPresence]) -> Bool {
        guard !own.openSessions.contains(machine), !own.presence.namesHome(machine: machine, name: name) else { return false }
        let others = live.filter { $0.gateway != gateway && couldHold($0, machine) }
        if others.contains(where: { $0.namesHome(machine: machine, name: name) }) { return true }
        if live.contains(where: { $0.gateway != gateway && $0.namesHome(machine: machine, name: name) }) {
            // Its home is live but cannot hold it: a stand-in keeps it rather than pass it along.
            return false
        }
        let mine = own.presence.heard[machine] ?? remembered[machine]?[gateway] ?? Int.min / 2
        return others.contains { (signal(of: machine, at: $0) ?? Int.min / 2) > mine + rules.rssiMargin }
    }

    /// candidates(M).
    func isCandidate(_ presence: GatewayPresence, _ machine: String) -> Bool {
        let holds = presence.holding.contains(machine)
        return (presence.heard[machine] != nil || holds) && (presence.freeSlots > 0 || holds) && !presence.releasing.contains(machine)
    }

    /// A candidate for a machine on another's link: it need not hear it now, only have heard it.
    private func couldHold(_ presence: GatewayPresence, _ machine: String) -> Bool {
        presence.freeSlots > 0 && !presence.releasing.contains(machine) && signal(of: machine, at: presence) != nil
    }

    private func signal(of machine: String, at presence: GatewayPresence) -> Int? {
        presence.heard[machine] ?? remembered[machine]?[presence.gateway]
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
        var live = presences.values.filter { $0.message.gateway != gateway && isLive($0.message.gateway, at: now) }.map(\.message)
        live.append(own)
        return live.sorted { $0.gateway < $1.gateway }
    }
}
