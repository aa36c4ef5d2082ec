/// Why an active session paused.
public enum PauseReason: String, Sendable, Hashable, Codable, CaseIterable {
    /// No movement for ``SessionRules/pauseAfterIdle``.
    case idle
    /// Fitness Machine Status "stopped or paused by the user" with the pause parameter.
    case machine
    /// The link dropped; the session waits out ``SessionRules/disconnectGrace``.
    case disconnected
}
