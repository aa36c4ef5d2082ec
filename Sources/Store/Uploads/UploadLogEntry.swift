public import GRDB
public import Workout

/// The last upload run's result, for `status` and the metrics socket: the `upload_log` table's
/// one row (`singleton = 1`).
public struct UploadLogEntry: Sendable, Hashable, Codable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "upload_log"

    private var singleton = 1
    public var finishedAt: UTCTime
    /// One line: `45 sessions in 3 batches: 45 uploaded`.
    public var result: String
    public var succeeded: Bool

    enum CodingKeys: String, CodingKey {
        case singleton
        case finishedAt = "finished_at"
        case result, succeeded
    }

    public init(finishedAt: UTCTime, result: String, succeeded: Bool) {
        self.finishedAt = finishedAt
        self.result = result
        self.succeeded = succeeded
    }
}
