import JSON

/// One accepted session, with how often it arrived.
struct AcceptedSession: Sendable, Hashable, Codable {
    let user: String
    /// The lower-cased `session_id`.
    let key: String
    /// The session exactly as first received.
    let body: JSONValue
    let figures: SessionFigures
    /// 1 for the first arrival, +1 for every duplicate: the crash tests' "exactly once" is
    /// about storage, and this shows how many retries it took.
    var received: Int
    let firstReceivedAt: Double

    enum CodingKeys: String, CodingKey {
        case user, key, body, figures, received
        case firstReceivedAt = "first_received_at"
    }
}
