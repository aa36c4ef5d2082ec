/// The numbers of a session that stats are made of, read once when it is accepted.
struct SessionFigures: Sendable, Hashable, Codable {
    /// Seconds since 1970 (`started_at`, `ended_at`).
    let startedAt: Double
    let endedAt: Double
    /// Seconds of movement (`duration`).
    let duration: Int64
    /// kcal (`total_energy`).
    let energy: Int64
    /// Metres (`total_distance`).
    let distance: Int64

    enum CodingKeys: String, CodingKey {
        case startedAt = "started_at"
        case endedAt = "ended_at"
        case duration, energy, distance
    }

    /// Of two summaries of one session, the one that ended later stands (seed 002 §7.3, contract
    /// §6): a gateway that carried a ride on after another gave up on it sends a second summary
    /// of the same `session_id`, and the longer one is the ride. An equal or earlier end is a
    /// copy or a stale half, so it changes nothing, and a resent later summary replaces once.
    func supersedes(_ stored: SessionFigures) -> Bool {
        endedAt > stored.endedAt
    }
}
