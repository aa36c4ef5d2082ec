/// Sessions carry over (docs/fleet.md): the adopter continues the newest mirrored checkpoint; a
/// gateway back from the dead learns whether its own session was adopted.
extension FloorView {
    /// The checkpoint to continue on taking the machine: the newest mirrored one, if it is still
    /// open, was mirrored by another gateway, and arrived less than `disconnectGrace` ago.
    public func adoptable(machine: String, at now: Duration, disconnectGrace: Duration) -> MirroredCheckpoint? {
        guard let arrived = checkpoints[FloorTopics.machineKey(machine)] else { return nil }
        let checkpoint = arrived.message
        guard checkpoint.state == .open, checkpoint.holder != gateway, checkpoint.snapshot != nil, now - arrived.at < disconnectGrace else { return nil }
        return checkpoint
    }

    /// Whether a session this gateway opens on the machine, having taken it with nothing to
    /// adopt, may be the rest of a ride whose checkpoint never reached the broker: the newest
    /// mirrored checkpoint is no open session of another gateway. (One that is, too old to
    /// adopt, says the ride ended at it: the machine stood unheld past the grace.)
    public func mayContinueUnmirrored(machine: String) -> Bool {
        guard let checkpoint = checkpoints[FloorTopics.machineKey(machine)]?.message else { return true }
        return checkpoint.state != .open || checkpoint.holder == gateway
    }

    /// The ride another live gateway says it lost on the machine (its presence's `lost`, lowest
    /// gateway name first): the session it held there when it went away, which nobody carried on.
    public func lostSession(machine: String, at now: Duration) -> String? {
        let machine = FloorTopics.machineKey(machine)
        return presences.keys.sorted().lazy.filter { $0 != gateway && isLive($0, at: now) }
            .compactMap { presences[$0]?.message.lost[machine] }.first
    }

    /// The adoptions the machine's newest checkpoint carries, to copy onto the next one mirrored.
    public func carried(on machine: String) -> [CarriedSession] {
        checkpoints[FloorTopics.machineKey(machine)]?.message.carried ?? []
    }

    /// The session the replaced claim held, when taking the machine cannot continue it: no
    /// checkpoint of it reached the broker, so the ride splits and the new session says so.
    func splitFrom(_ machine: String, adopting adopt: MirroredCheckpoint?) -> String? {
        guard let claim = claims[machine]?.message, let session = claim.sessionID, claim.holder != gateway else { return nil }
        guard adopt?.sessionID != session, checkpoints[machine]?.message.sessionID != session else { return nil }
        return session
    }

    /// What became of a session this gateway held with claim epoch `ownEpoch`, as the broker's
    /// retained messages tell. Adopted only on proof that another gateway carried it on: a
    /// checkpoint of it mirrored by another gateway with a newer epoch (an adopter mirrors one
    /// as soon as its link is up), or the machine's carried list (``MirroredCheckpoint/carried``,
    /// copied on by every later holder) naming it as taken from this gateway, however many
    /// rides later. A claim naming the session is no proof: it is published before the
    /// connect, which may fail or find the ride gone, and a later checkpoint under that claim
    /// may be another session. Where the proof is missing, the answer is "not adopted": a
    /// session uploaded twice is one at the backend (seed 002 §7.3), a session handed over
    /// that nobody carried on is a lost ride.
    public func fate(ofSession session: String, machine: String, ownEpoch: Int) -> SessionFate {
        let machine = FloorTopics.machineKey(machine)
        let checkpoint = checkpoints[machine]?.message
        if let carried = checkpoint?.carried.last(where: { $0.sessionID == session && $0.from == gateway && $0.by != gateway }) {
            return .adopted(by: carried.by)
        }
        if let checkpoint, checkpoint.sessionID == session, checkpoint.holder != gateway, checkpoint.epoch > ownEpoch {
            return .adopted(by: checkpoint.holder)
        }
        if let claim = claims[machine]?.message, claim.epoch >= ownEpoch { return .notAdopted }
        if let checkpoint, checkpoint.epoch >= ownEpoch { return .notAdopted }
        return .unknown
    }
}
