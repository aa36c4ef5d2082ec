/// What one upload attempt decided for one session (SolidFocus's per-session results).
public enum SessionOutcome: Sendable, Hashable {
    /// Accepted, or a duplicate the backend already holds.
    case uploaded
    /// Rejected this time: stays pending, `retry_count + 1`, `rejection_count + 1`.
    case retry(error: String)
    /// Rejected as permanently invalid: dead-letter, `retry_count + 1`, `rejection_count + 1`.
    case dead(error: String)
    /// The call carrying it failed as a whole: stays pending, `retry_count + 1`.
    case callFailed(error: String)
}
