/// A moment in a training at which the target changes: from `at` on, the machine should hold
/// `target`, or, when it is nil, the plan sets nothing (a gap between stages) and the machine
/// keeps whatever it has.
public struct TrainingChange: Sendable, Equatable, Hashable {
    public var at: Duration
    public var target: TrainingTarget?

    public init(at: Duration, target: TrainingTarget?) {
        self.at = at
        self.target = target
    }
}
