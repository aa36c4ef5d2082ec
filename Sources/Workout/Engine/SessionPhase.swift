/// Where an open session is in contract §5's lifecycle. Waiting-for-start is the absence of an
/// open session, and ended is its removal, so only these two remain.
enum SessionPhase: Sendable, Hashable, Codable {
    case active
    case paused(PauseReason)

    var isActive: Bool {
        if case .active = self { return true }
        return false
    }
}
