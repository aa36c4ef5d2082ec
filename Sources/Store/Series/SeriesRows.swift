import GRDB
import Workout

/// The `session_series` table's row: which machine recorded a session's series, and whether
/// the series is bound to its queued session or still open.
struct SeriesRow: Hashable, Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "session_series"
    typealias Columns = CodingKeys

    var sessionID: String
    var machineName: String
    /// `bike` or `rower`: text, so a type this build does not know still reads (as a bike).
    var machineType: String
    var finished: Bool
    var createdAt: UTCTime

    enum CodingKeys: String, ColumnKey {
        case sessionID = "session_id"
        case machineName = "machine_name"
        case machineType = "machine_type"
        case finished
        case createdAt = "created_at"
    }
}

/// The `session_series_chunks` table's row: one batch of a session's points, numbered in the
/// order they were appended.
struct SeriesChunkRow: Hashable, Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "session_series_chunks"
    typealias Columns = CodingKeys

    var sessionID: String
    var chunk: Int
    /// A JSON array in a TEXT column (GRDB's JSON column for a nested Codable value).
    var points: [SeriesPoint]

    enum CodingKeys: String, ColumnKey {
        case sessionID = "session_id"
        case chunk, points
    }
}
