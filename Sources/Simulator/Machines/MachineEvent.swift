/// A change the Control Point made to a machine, which its data source reacts to.
public enum MachineEvent: Sendable, Equatable {
    /// In the machine's resistance unit (the Control Point's 0.1 steps, scaled).
    case targetResistance(Double)
    case targetPower(watts: Int)
    /// Indoor bike simulation: the grade makes pedalling harder, as a steeper road would.
    case simulation(gradePercent: Double)
    case startedOrResumed
    case stopped
    case paused
    case reset
}
