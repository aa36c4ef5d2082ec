/// One stage of a training: from `start` (since the training began) for `duration`, the
/// machine should hold `target`.
///
/// `target` is nil for a stage whose target this gateway cannot set (a kind of target added to
/// the backend later): the stage still takes its time, and the machine is left as it is.
package struct TrainingStage: Sendable, Equatable, Hashable {
    package var start: Duration
    package var duration: Duration
    package var target: TrainingTarget?

    package init(start: Duration, duration: Duration, target: TrainingTarget?) {
        self.start = start
        self.duration = duration
        self.target = target
    }

    package var end: Duration { start + duration }

    func covers(_ elapsed: Duration) -> Bool {
        start <= elapsed && elapsed < end
    }
}
