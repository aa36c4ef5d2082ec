/// One of SolidFocus's trainings as something a runner can follow: which target holds at each
/// moment since the training started, and when it ends.
///
/// The rule for stages that overlap or leave gaps, fixed here so that every runner and every
/// test agrees:
/// - At a moment `t`, the stages that cover it are those with `start ≤ t < start + duration`.
///   Of those, the one that started last wins: a short stage inside a long one is an interval
///   on a base, and the base resumes when the interval ends. Between stages that start at the
///   same moment, the one listed later in the training wins.
/// - A moment no stage covers is a gap: the plan sets nothing (`nil`) and the machine keeps
///   what it has.
/// - The plan ends at `duration` (the training's own, or the last stage's end when the
///   training gives none); a stage running past it is cut there.
package struct TrainingPlan: Sendable, Equatable, Hashable {
    package var id: String
    package var title: String?
    /// `bike`, `rower`, or whatever the backend calls a kind of machine; nil when unsaid.
    package var machineType: String?
    package var duration: Duration
    /// Sorted by start; stages that start together keep their order in the training.
    package private(set) var stages: [TrainingStage]

    /// Sorts `stages` by start (stably) so that the overlap rule can read them in order.
    package init(id: String, title: String? = nil, machineType: String? = nil, duration: Duration, stages: [TrainingStage]) {
        self.id = id
        self.title = title
        self.machineType = machineType
        self.duration = duration
        self.stages = stages.enumerated()
            .sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }
            .map(\.element)
    }

    /// The target that holds `elapsed` after the start, or nil in a gap, before zero and from
    /// the end on.
    package func target(atElapsed elapsed: Duration) -> TrainingTarget? {
        guard elapsed >= .zero, elapsed < duration else { return nil }
        return stages.last { $0.covers(elapsed) }?.target
    }

    package func isFinished(atElapsed elapsed: Duration) -> Bool {
        elapsed >= duration
    }
}
