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
}
