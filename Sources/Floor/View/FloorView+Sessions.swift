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

    /// The session the replaced claim held, when taking the machine cannot continue it: no
    /// checkpoint of it reached the broker, so the ride splits and the new session says so.
    func splitFrom(_ machine: String, adopting adopt: MirroredCheckpoint?) -> String? {
        guard let claim = claims[machine]?.message, let session = claim.sessionID, claim.holder != gateway else { return nil }
        guard adopt?.sessionID != session, checkpoints[machine]?.message.sessionID != session else { return nil }
        return session
    }

    /// What became of a session this gateway held with claim epoch `ownEpoch`, as the broker's
    /// retained messages tell: adopted when another gateway's newer checkpoint or claim names it.
    public func fate(ofSession session: String, machine: String, ownEpoch: Int) -> SessionFate {
        let machine = FloorTopics.machineKey(machine)
        let checkpoint = checkpoints[machine]?.message
        if let checkpoint, checkpoint.sessionID == session, checkpoint.holder != gateway, checkpoint.epoch > ownEpoch {
            return .adopted(by: checkpoint.holder)
        }
        let claim = claims[machine]?.message
        if let claim, claim.sessionID == session, let holder = claim.holder, holder != gateway, claim.epoch > ownEpoch {
            return .adopted(by: holder)
        }
        if let claim, claim.epoch >= ownEpoch { return .notAdopted }
        if let checkpoint, checkpoint.epoch >= ownEpoch { return .notAdopted }
        return .unknown
    }
}
