/// What a stage asks of the machine: one Control Point command, held for the stage.
package enum TrainingTarget: Sendable, Equatable, Hashable {
    /// A resistance level in the machine's own unit (the Control Point writer clamps it to the
    /// machine's range).
    case resistance(Double)
    case power(Int)
}
