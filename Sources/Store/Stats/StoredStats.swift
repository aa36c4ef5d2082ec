public import Workout

/// The stats the gateway last settled on, and where they came from.
public struct StoredStats: Sendable, Hashable {
    public enum Source: String, Sendable, Hashable {
        /// Adopted from the backend (login, or an upload whose `updated_stats` agreed).
        case server
        /// Computed here and pushed with `PATCH /users/me/stats` (the gateway wins).
        case gateway
    }

    public var stats: WorkoutStats
    public var source: Source
    public var updatedAt: UTCTime

    public init(stats: WorkoutStats, source: Source, updatedAt: UTCTime) {
        self.stats = stats
        self.source = source
        self.updatedAt = updatedAt
    }
}
