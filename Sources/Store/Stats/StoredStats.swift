public import GRDB
public import Workout

/// The stats the gateway last settled on, and where they came from: the `stats` table's one
/// row (`singleton = 1`), the stats as JSON in its `body`.
public struct StoredStats: Sendable, Hashable, Codable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "stats"

    public enum Source: String, Sendable, Hashable, Codable {
        /// Adopted from the backend (login, or an upload whose `updated_stats` agreed).
        case server
        /// Computed here and pushed with `PATCH /users/me/stats` (the gateway wins).
        case gateway
    }

    private var singleton = 1
    public var stats: WorkoutStats
    public var source: Source
    public var updatedAt: UTCTime

    enum CodingKeys: String, CodingKey {
        case singleton
        case stats = "body"
        case source
        case updatedAt = "updated_at"
    }

    public init(stats: WorkoutStats, source: Source, updatedAt: UTCTime) {
        self.stats = stats
        self.source = source
        self.updatedAt = updatedAt
    }
}
