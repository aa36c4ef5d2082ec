/// What the engine reports, in the order things happened.
///
/// `indirect`: an event is boxed, so ``SessionEvents`` is a few words whatever the summary's
/// size, and the per-sample path (which almost never has an event) copies nothing large.
/// The box is allocated only when an event happens, a handful of times per session.
public indirect enum SessionEvent: Sendable, Hashable {
    case started(SessionProgress)
    case paused(SessionProgress, PauseReason)
    case resumed(SessionProgress)
    /// A session worth keeping: store and upload ``SessionSummary``.
    case finished(SessionProgress, SessionSummary)
    /// A session below the minimum (contract §5): log the reason, keep nothing.
    case dropped(SessionProgress, DropReason, SessionSummary)

    public var progress: SessionProgress {
        switch self {
        case .started(let progress), .resumed(let progress), .paused(let progress, _),
             .finished(let progress, _), .dropped(let progress, _, _):
            progress
        }
    }

    public var sessionID: String { progress.sessionID }

    /// contract §7 `session_state`'s `state`. A dropped session also ends its readers' view of
    /// it, so it is `finished` there; the publisher adds the drop reason.
    public var state: StaticString {
        switch self {
        case .started: "started"
        case .paused: "paused"
        case .resumed: "resumed"
        case .finished, .dropped: "finished"
        }
    }

    /// The summary of a session that ended, kept or not.
    public var summary: SessionSummary? {
        switch self {
        case .finished(_, let summary), .dropped(_, _, let summary): summary
        case .started, .paused, .resumed: nil
        }
    }
}
