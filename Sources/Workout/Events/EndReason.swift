/// Why a session ended: the summary's `detail.end_reason`.
public enum EndReason: String, Sendable, Hashable, Codable, CaseIterable {
    /// Fitness Machine Status "stopped by the user" (control information 0x01).
    case stopped
    /// Fitness Machine Status "reset".
    case reset
    /// Fitness Machine Status "stopped by safety key".
    case safetyKey = "safety_key"
    /// No movement for ``SessionRules/endAfterIdle``.
    case idle
    /// The link stayed down for ``SessionRules/disconnectGrace``.
    case disconnected
    /// A machine counter fell back: the console was reset, most likely for a new rider.
    case counterFallback = "counter_fallback"
    /// The host closed it: the daemon stopping (SIGTERM) or an operator.
    case shutdown
    /// Replay reached the end of its capture.
    case endOfCapture = "end_of_capture"
}
