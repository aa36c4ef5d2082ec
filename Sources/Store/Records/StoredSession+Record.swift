public import GRDB
import Workout

/// A `sessions` row as the queue lists it. The machine's name and type come out of the stored
/// summary's `detail` (see ``GatewayStore/sessions(status:)``'s query, which names them).
extension StoredSession: FetchableRecord {
    enum Columns {
        static let sessionID = Column("session_id")
        static let startedAt = Column("started_at")
        static let duration = Column("duration")
        static let totalEnergy = Column("total_energy")
        static let totalDistance = Column("total_distance")
        static let uploadStatus = Column("upload_status")
        static let retryCount = Column("retry_count")
        static let rejectionCount = Column("rejection_count")
        static let lastError = Column("last_error")
        static let origin = Column("origin")
        static let machineName = Column("machine_name")
        static let machineType = Column("machine_type")
        static let hasSeries = Column("has_series")
    }

    public init(row: Row) throws {
        self.init(
            sessionID: row[Columns.sessionID], startedAt: UTCTime(millisecondsSince1970: row[Columns.startedAt]),
            duration: row[Columns.duration], totalEnergy: row[Columns.totalEnergy], totalDistance: row[Columns.totalDistance],
            status: UploadStatus(rawValue: row[Columns.uploadStatus]) ?? .pending, retryCount: row[Columns.retryCount],
            rejectionCount: row[Columns.rejectionCount], lastError: row[Columns.lastError],
            downloaded: (row[Columns.origin] as String) == "server", machineName: row[Columns.machineName],
            machineType: row[Columns.machineType], hasSeries: row[Columns.hasSeries])
    }
}

/// A pending `sessions` row as the uploader takes it: the summary JSON exactly as stored.
extension PendingSession: FetchableRecord {
    enum Columns {
        static let sessionID = Column("session_id")
        static let startedAt = Column("started_at")
        static let retryCount = Column("retry_count")
        static let rejectionCount = Column("rejection_count")
        static let summary = Column("summary")
    }

    public init(row: Row) throws {
        self.init(
            sessionID: row[Columns.sessionID], startedAt: UTCTime(millisecondsSince1970: row[Columns.startedAt]),
            retryCount: row[Columns.retryCount], rejectionCount: row[Columns.rejectionCount], json: row[Columns.summary])
    }
}
