/// A moment in a training at which the target changes: from `at` on, the machine should hold
/// `target`, or, when it is nil, the plan sets nothing (a gap between stages) and the machine
/// keeps whatever it has.
package struct TrainingChange: Sendable, Equatable, Hashable {
    package var at: Duration
    package var target: TrainingTarget?

    package init(at: Duration, target: TrainingTarget?) {
        self.at = at
        self.target = target
    }
}
