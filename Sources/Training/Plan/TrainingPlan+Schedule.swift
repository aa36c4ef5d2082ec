extension TrainingPlan {
    /// Every moment the target changes, in order, starting with the one at zero; the plan ends
    /// at ``duration``. A runner sends the first entry's target, sleeps until the next entry,
    /// and so on: adjacent stages with the same target make no entry, so no command is sent
    /// twice. Empty for a plan that lasts no time.
    package func schedule() -> [TrainingChange] {
        var moments = Set<Duration>([.zero])
        for stage in stages {
            moments.insert(stage.start)
            moments.insert(stage.end)
        }
        var changes: [TrainingChange] = []
        for moment in moments.sorted() where moment < duration {
            let target = target(atElapsed: moment)
            if changes.last.map({ $0.target != target }) ?? true {
                changes.append(TrainingChange(at: moment, target: target))
            }
        }
        return changes
    }

    /// The first change after `elapsed`, or nil when none comes before the end: what a runner
    /// that woke up late (or resumed after a pause) sleeps until next.
    package func nextChange(after elapsed: Duration) -> TrainingChange? {
        schedule().first { $0.at > elapsed }
    }
}
