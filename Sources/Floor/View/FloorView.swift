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
    /// The last RSSI each gateway reported for each machine (machine → gateway → dBm), kept after
    /// the machine went quiet: a machine on a link stops advertising, so a home gateway that
    /// comes back cannot hear it until it is released. See ``forgetUnheard(by:at:)``.
    private(set) var remembered: [String: [String: Int]] = [:]
    /// Advertised names learnt from claims, by machine key.
    private(set) var names: [String: String] = [:]

    public init(gateway: String, rules: FloorRules = FloorRules()) {
        self.gateway = gateway
        self.rules = rules
    }

    public mutating func receive(presence: GatewayPresence, at now: Duration) {
        let presence = presence.keyed()
        presences[presence.gateway] = Arrived(presence, at: now)
        guard presence.online else { return }
        for (machine, rssi) in presence.heard { remembered[machine, default: [:]][presence.gateway] = rssi }
        forgetUnheard(by: presence, at: now)
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

    /// The machine's holder if its claim names one that is live; nil otherwise (released, or its
    /// holder gone).
    public func holder(of machine: String, at now: Duration) -> String? {
        guard let holder = claims[FloorTopics.machineKey(machine)]?.message.holder, isLive(holder, at: now) else { return nil }
        return holder
    }

    /// A gateway that reports a machine unheard while the machine is advertising (no live holder,
    /// another live gateway hears it) is out of its range: its remembered RSSI goes.
    private mutating func forgetUnheard(by presence: GatewayPresence, at now: Duration) {
        for (machine, byGateway) in remembered where byGateway[presence.gateway] != nil && presence.heard[machine] == nil {
            guard holder(of: machine, at: now) == nil else { continue }
            let advertising = presences.values.contains { other in
                other.message.gateway != presence.gateway && other.message.online && now - other.at < rules.lease
                    && other.message.heard[machine] != nil
            }
            if advertising { remembered[machine]?[presence.gateway] = nil }
        }
    }
}
