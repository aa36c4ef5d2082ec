public import GRDB
public import Workout

/// A session's row as `ftms-bridge queue` lists it: a projection of the `sessions` row (and
/// what the listing's query adds), decoded by GRDB from the query's columns, not copied from a
/// whole row.
public struct StoredSession: Sendable, Hashable, Decodable, FetchableRecord {
    public var sessionID: String
    public var startedAt: UTCTime
    public var duration: Int
    public var totalEnergy: Int
    public var totalDistance: Int
    public var status: UploadStatus
    /// Failed upload attempts: calls that failed plus per-session rejections (SolidFocus's
    /// `retry_count`).
    public var retryCount: Int
    /// How many of those were the backend naming this session in `failed_sessions`: what
    /// decides the dead-letter state, since a failed call says nothing about the session.
    public var rejectionCount: Int
    /// The last failure, one line (`validation_error: Invalid duration`, `HTTP 503`).
    public var lastError: String?
    /// `true` for sessions downloaded from the backend at login rather than recorded here.
    public var downloaded: Bool
    /// The machine, from the summary's `detail` (`nil` for a downloaded session without one).
    public var machineName: String?
    /// `bike` or `rower`, likewise.
    public var machineType: String?
    /// Whether the store holds a plot series for it (``GatewayStore/series(sessionID:)``).
    public var hasSeries: Bool = false
    /// The session this one continues in part: another gateway's ride this one could not carry
    /// on (issue 37), so the ride is split in two sessions; `nil` for almost every session.
    public var splitFrom: String?

    /// The columns of ``GatewayStore``'s listing query.
    enum CodingKeys: String, CodingKey {
        case sessionID = "session_id"
        case startedAt = "started_at"
        case duration
        case totalEnergy = "total_energy"
        case totalDistance = "total_distance"
        case status = "upload_status"
        case retryCount = "retry_count"
        case rejectionCount = "rejection_count"
        case lastError = "last_error"
        case downloaded
        case machineName = "machine_name"
        case machineType = "machine_type"
        case hasSeries = "has_series"
        case splitFrom = "split_from"
    }
}

/// A pending session as the batch upload procedure sends it: a projection of the `sessions`
/// row, read from its columns (``columns``) alone.
public struct PendingSession: Sendable, Hashable, Decodable, FetchableRecord {
    public var sessionID: String
    public var startedAt: UTCTime
    public var retryCount: Int
    public var rejectionCount: Int
    /// The summary as uploaded (the `summary` column).
    public var json: String

    enum CodingKeys: String, CodingKey, CaseIterable {
        case sessionID = "session_id"
        case startedAt = "started_at"
        case retryCount = "retry_count"
        case rejectionCount = "rejection_count"
        case json = "summary"
    }

    /// What a query of the queue selects for it.
    static var columns: [any SQLSelectable] { CodingKeys.allCases.map { Column($0.rawValue) } }
}

/// How many sessions are in each state.
public struct QueueCounts: Sendable, Hashable {
    public var pending = 0
    public var uploaded = 0
    public var dead = 0

    public init(pending: Int = 0, uploaded: Int = 0, dead: Int = 0) {
        self.pending = pending
        self.uploaded = uploaded
        self.dead = dead
    }
}

/// A position in the oldest-first pending order (`started_at`, then `session_id`): each batch
/// starts after the last one, so a batch left pending by a failed call is not sent again in
/// the same run.
public struct QueueCursor: Sendable, Hashable {
    public var startedAt: UTCTime
    public var sessionID: String

    public init(after session: PendingSession) {
        startedAt = session.startedAt
        sessionID = session.sessionID
    }
}
