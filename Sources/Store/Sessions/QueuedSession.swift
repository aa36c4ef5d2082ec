import GRDB
import Workout

/// The `sessions` table's row: a session in the queue, its figures, its JSON as uploaded, and
/// where it stands with the backend. ``StoredSession`` and ``PendingSession`` are what the
/// queue's readers take of it: projections GRDB decodes from their own columns.
struct QueuedSession: Hashable, Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "sessions"
    typealias Columns = CodingKeys

    var sessionID: String
    var startedAt: UTCTime
    var endedAt: UTCTime
    var duration: Int
    var totalEnergy: Int
    var totalDistance: Int
    /// The JSON object exactly as uploaded (or as the backend sent it): text kept byte for
    /// byte, never decoded and encoded again.
    var summary: String
    var origin: SessionOrigin
    var uploadStatus: UploadStatus
    var retryCount = 0
    var rejectionCount = 0
    var lastError: String?
    var createdAt: UTCTime
    var updatedAt: UTCTime
    /// Whether the dates are true, or wait for a true clock (contract §5).
    var dates: SessionDates
    /// Where a session recorded here lay on its boot's `CLOCK_BOOTTIME`: the boot, and the
    /// start in milliseconds (``SessionTiming``).
    var bootID: BootID?
    var bootStart: Int64?
    /// The session this one continues in part (``SessionProgress/splitFrom``).
    var splitFrom: String?

    enum CodingKeys: String, ColumnKey {
        case sessionID = "session_id"
        case startedAt = "started_at"
        case endedAt = "ended_at"
        case duration
        case totalEnergy = "total_energy"
        case totalDistance = "total_distance"
        case summary, origin
        case uploadStatus = "upload_status"
        case retryCount = "retry_count"
        case rejectionCount = "rejection_count"
        case lastError = "last_error"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case dates
        case bootID = "boot_id"
        case bootStart = "boot_start"
        case splitFrom = "split_from"
    }

    init(_ record: SessionRecord, origin: SessionOrigin, status: UploadStatus, at now: UTCTime) {
        sessionID = record.sessionID
        startedAt = record.startedAt
        endedAt = record.endedAt
        duration = record.duration
        totalEnergy = record.totalEnergy
        totalDistance = record.totalDistance
        summary = record.json
        self.origin = origin
        uploadStatus = status
        createdAt = now
        updatedAt = now
        dates = record.timing.map { $0.datesAreTrue ? .true : .waiting } ?? .true
        bootID = record.timing?.boot
        bootStart = record.timing.map { SessionDates.milliseconds($0.start) }
    }

    /// Stores the session unless its id is held already (a replayed capture, a retried
    /// hand-off, a salvaged copy): returns whether it was new.
    func insertIfNew(_ db: Database) throws -> Bool {
        try insert(db, onConflict: .ignore)
        return db.changesCount > 0
    }

    /// Takes the place of the stored row of the same session if this one ends later, by whole
    /// seconds as the backend compares `endEpoch` (seed 002 §7.3): pending, with fresh retry
    /// counts, so that it goes up even if the stored one did. Where it was recorded, when it
    /// was first stored and what it split from stay. Returns whether it replaced the row.
    func supersede(_ db: Database) throws -> Bool {
        guard let stored = try QueuedSession.fetchOne(db, key: sessionID),
              endedAt.secondsSince1970 > stored.endedAt.secondsSince1970
        else { return false }
        var replacement = self
        replacement.origin = stored.origin
        replacement.createdAt = stored.createdAt
        replacement.splitFrom = splitFrom ?? stored.splitFrom
        try replacement.update(db)
        return true
    }
}
