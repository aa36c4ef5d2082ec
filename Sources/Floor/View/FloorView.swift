/// One gateway's view of the floor: the latest presence of every gateway, the newest claim and
/// mirrored checkpoint of every machine, each with the instant it arrived on this gateway's
/// monotonic clock. A value: the daemon's coordinator owns one and feeds it every floor message
/// (its own included: record a claim you publish at once, do not wait for its echo).
///
/// Epochs only grow: a claim or checkpoint below the newest one seen for its machine is ignored,
/// so a message from a gateway back from the dead cannot overrule a newer holder.
public struct FloorView: Sendable {
    /// This gateway's id.
    public let gateway: String
    public let rules: FloorRules

    public private(set) var presences: [String: Arrived<GatewayPresence>] = [:]
    /// By machine key (upper-cased address).
    public private(set) var claims: [String: Arrived<MachineClaim>] = [:]
    /// The newest mirrored checkpoint of each machine, by machine key.
    public private(set) var checkpoints: [String: Arrived<MirroredCheckpoint>] = [:]
    /// The highest epoch seen in any claim or checkpoint of each machine.
    public private(set) var highestEpochs: [String: Int] = [:]
    /// The gateway that last claimed each machine as its home (reason `home`): where a stand-in
    /// gives the machine back. A machine on a link stops advertising, so a home back from the
    /// dead cannot hear it until it is released; this is how the floor remembers whose it is.
    public private(set) var homes: [String: String] = [:]
    /// The reason of this gateway's newest claim of each machine: what a link's reassertion
    /// claims again.
    public private(set) var takenAs: [String: MachineClaim.Reason] = [:]
    /// The reason of the newest claim with a holder of each machine: whether a release gives
    /// the machine back from a stand-in.
    public private(set) var lastTakenAs: [String: MachineClaim.Reason] = [:]
    /// Advertised names learnt from claims, by machine key.
    private(set) var names: [String: String] = [:]

    public init(gateway: String, rules: FloorRules = FloorRules()) {
        self.gateway = gateway
        self.rules = rules
    }

    public mutating func receive(presence: GatewayPresence, at now: Duration) {
        var presence = presence.keyed()
        // A last will carries no home list; the gateway's machines are still its own while it is gone.
        if !presence.online, let last = presences[presence.gateway]?.message { presence.home = last.home }
        // The same presence again (its beat unchanged) is no sign of life: the broker hands a
        // retained one out on every subscribe, so a broker restart (or a sender's client
        // republishing its retained messages on reconnect) would otherwise renew the lease of
        // a gateway that died silently. It keeps the arrival of its first copy.
        if let seen = presences[presence.gateway], seen.message == presence {
            return
        }
        presences[presence.gateway] = Arrived(presence, at: now)
    }

    /// Records a claim; false (and no change) when its epoch is below the newest claim seen for
    /// the machine. An equal epoch replaces: the broker's order decides a tie.
    @discardableResult
    public mutating func receive(claim: MachineClaim, at now: Duration) -> Bool {
        var claim = claim
        claim.machine = FloorTopics.machineKey(claim.machine)
        if let seen = claims[claim.machine], claim.epoch < seen.message.epoch { return false }
        claims[claim.machine] = Arrived(claim, at: now)
        highestEpochs[claim.machine] = max(highestEpochs[claim.machine] ?? 0, claim.epoch)
        if let name = claim.name { names[claim.machine] = name }
        if claim.reason == .home, let holder = claim.holder { homes[claim.machine] = holder }
        if claim.holder != nil { lastTakenAs[claim.machine] = claim.reason }
        if claim.holder == gateway { takenAs[claim.machine] = claim.reason }
        return true
    }

    /// Records a mirrored checkpoint; false when its epoch is below the newest one kept for the
    /// machine.
    @discardableResult
    public mutating func receive(checkpoint: MirroredCheckpoint, at now: Duration) -> Bool {
        var checkpoint = checkpoint
        checkpoint.machine = FloorTopics.machineKey(checkpoint.machine)
        if let kept = checkpoints[checkpoint.machine], checkpoint.epoch < kept.message.epoch { return false }
        checkpoints[checkpoint.machine] = Arrived(checkpoint, at: now)
        highestEpochs[checkpoint.machine] = max(highestEpochs[checkpoint.machine] ?? 0, checkpoint.epoch)
        return true
    }

    /// The epoch a new claim (or release) of the machine carries: one above the highest seen.
    public func nextEpoch(for machine: String) -> Int {
        (highestEpochs[FloorTopics.machineKey(machine)] ?? 0) + 1
    }

    /// Live: its last presence said online and arrived less than `lease` ago. This gateway is
    /// always live to itself.
    public func isLive(_ gateway: String, at now: Duration) -> Bool {
        if gateway == self.gateway { return true }
        guard let arrived = presences[gateway] else { return false }
        return arrived.message.online && now - arrived.at < rules.lease
    }

    /// When this view found `gateway` gone: its last will's arrival, or its lease run out; nil
    /// while it is live or never seen.
    public func goneSince(_ gateway: String, at now: Duration) -> Duration? {
        guard !isLive(gateway, at: now), let arrived = presences[gateway] else { return nil }
        return arrived.message.online ? arrived.at + rules.lease : arrived.at
    }

    /// The machine's holder if its claim names one that is live; nil otherwise (released, or its
    /// holder gone).
    public func holder(of machine: String, at now: Duration) -> String? {
        guard let holder = claims[FloorTopics.machineKey(machine)]?.message.holder, isLive(holder, at: now) else { return nil }
        return holder
    }

}
