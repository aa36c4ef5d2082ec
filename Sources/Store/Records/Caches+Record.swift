public import GRDB
import Workout

/// The `upload_log` row: the last upload run.
extension UploadLogEntry: FetchableRecord {
    enum Columns {
        static let finishedAt = Column("finished_at")
        static let result = Column("result")
        static let succeeded = Column("succeeded")
    }

    public init(row: Row) throws {
        self.init(finishedAt: UTCTime(millisecondsSince1970: row[Columns.finishedAt]), result: row[Columns.result], succeeded: row[Columns.succeeded])
    }
}

/// The `trainings` row: the backend's trainings as last fetched.
extension TrainingsCache: FetchableRecord {
    enum Columns {
        static let body = Column("body")
        static let cacheTimestamp = Column("cache_timestamp")
    }

    public init(row: Row) throws {
        self.init(body: row[Columns.body], cacheTimestamp: UTCTime(millisecondsSince1970: row[Columns.cacheTimestamp]))
    }
}
