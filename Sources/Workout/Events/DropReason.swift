/// Why a finished session is not kept (contract §5: below the minimum; logged, not uploaded).
public enum DropReason: String, Sendable, Hashable, Codable, CaseIterable {
    /// Less movement than ``SessionRules/minimumMovement``.
    case tooShort = "too_short"
    /// Neither distance nor energy: nothing a backend could count.
    case noDistanceOrEnergy = "no_distance_or_energy"

    /// The rule of contract §5 applied to a built summary and its exact movement time.
    static func judging(_ summary: SessionSummary, moving: Int64, minimum: Int64) -> DropReason? {
        if moving < minimum { return .tooShort }
        if summary.totalDistance == 0, summary.totalEnergy == 0 { return .noDistanceOrEnergy }
        return nil
    }
}
