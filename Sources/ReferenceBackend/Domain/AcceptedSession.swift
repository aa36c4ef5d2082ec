import JSON

/// One accepted session, with how often it arrived: the summary that ended latest of those
/// that arrived under its id (``SessionFigures/supersedes(_:)``).
struct AcceptedSession: Sendable, Hashable, Codable {
    let user: String
    /// The lower-cased `session_id`.
    let key: String
    /// The standing summary exactly as received.
    let body: JSONValue
    let figures: SessionFigures
    /// 1 for the first arrival, +1 for every later one (a duplicate or a replacing summary):
    /// the crash tests' "exactly once" is about storage, and this shows how many retries it took.
    var received: Int
    let firstReceivedAt: Double

    enum CodingKeys: String, CodingKey {
        case user, key, body, figures, received
        case firstReceivedAt = "first_received_at"
    }

    /// This session with a later summary standing in its place; the arrival count and the
    /// first arrival's time carry over.
    func replaced(by body: JSONValue, figures: SessionFigures) -> AcceptedSession {
        AcceptedSession(user: user, key: key, body: body, figures: figures, received: received + 1, firstReceivedAt: firstReceivedAt)
    }
}
