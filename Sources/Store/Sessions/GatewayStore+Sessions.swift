import GRDB
public import Workout

extension GatewayStore {
    /// Stores a finished session as pending (SolidFocus Flow 4 step 2), and in the same
    /// transaction removes the checkpoint of the machine it was recorded on if the checkpoint
    /// still holds it: a crash between the two can neither lose the session nor resume it.
    ///
    /// One row per `session_id`: storing a session again (a replayed capture, a retried
    /// hand-off) changes nothing, unless the new summary ends later (seed 002 §7.3, as the
    /// backend judges it: a later `endEpoch`), which then takes the stored one's place, pending
    /// again even if that one was uploaded. A session handed over to another gateway
    /// (``handOver(sessionID:machineAddress:to:)``) is not stored. Returns which of these it was.
    ///
    /// `splitFrom`: the session this one continues in part (``SessionProgress/splitFrom``).
    ///
    /// `series`: the session's plot points not yet stored; they are appended and the session's
    /// series is bound to it in the same transaction, so a crash keeps both or neither.
    ///
    /// `timing`: where the session lay on its boot's monotonic clock. A session whose dates are
    /// not true is kept `waiting`, and not uploaded, until it is dated (``dateSessions(boot:offset:)``).
    ///
    /// Once committed, a new session's second copy goes to the session journal before this
    /// returns (``SessionJournal``): a ride is never in one file only.
    @discardableResult
    public func enqueue(
        _ summary: SessionSummary, machineAddress: String? = nil, series: SeriesChunk? = nil, timing: SessionTiming? = nil,
        splitFrom: String? = nil
    ) async throws -> QueueAdmission {
        var record = SessionRecord(summary)
        record.timing = timing
        let now = clock.now()
        let session = {
            var session = QueuedSession(record, origin: .gateway, status: .pending, at: now)
            session.splitFrom = splitFrom
            return session
        }()
        let chunk = series ?? SeriesChunk(sessionID: summary.sessionID, machine: summary.detail.machine, points: [])
        let admission = try await write { db -> QueueAdmission in
            if let machineAddress {
                try Self.removeCheckpoint(db, machineAddress: machineAddress, sessionID: summary.sessionID)
            }
            if try HandedOverRow.exists(db, key: summary.sessionID) {
                try Self.removeOpenSeries(db, sessionID: summary.sessionID)
                return .handedOver
            }
            let admission: QueueAdmission =
                if try session.insertIfNew(db) { .added } else if try session.supersede(db) { .replaced } else { .kept }
            if try series != nil || SeriesRow.exists(db, key: summary.sessionID) {
                try Self.appendSeries(chunk, finished: true, now: now, db)
            }
            return admission
        }
        if admission == .added || admission == .replaced { await keepSecondCopy([SessionJournal.Entry(record: record)]) }
        return admission
    }

    /// Stores many finished sessions as pending in one transaction, each with its plot series
    /// when `series` has one for its id (the tests' queues). Returns how many were new. A
    /// session the gateway finishes goes through ``FinishedSessionKeeper`` instead.
    @discardableResult
    public func enqueue(_ summaries: [SessionSummary], series: [String: SeriesChunk] = [:]) async throws -> Int {
        let now = clock.now()
        let records = summaries.map(SessionRecord.init)
        let sessions = records.map { QueuedSession($0, origin: .gateway, status: .pending, at: now) }
        let added = try await write { db in
            var added: Set<String> = []
            for session in sessions where try session.insertIfNew(db) {
                added.insert(session.sessionID)
                if let chunk = series[session.sessionID] {
                    try Self.appendSeries(chunk, finished: true, now: now, db)
                }
            }
            return added
        }
        await keepSecondCopy(records.filter { added.contains($0.sessionID) }.map { SessionJournal.Entry(record: $0) })
        return added.count
    }

    /// ``enqueue(_:)-([SessionSummary])`` for records already in their upload form.
    @discardableResult
    public func enqueue(_ records: [SessionRecord]) async throws -> Int {
        try await importSessions(records.map { ($0, .gateway, .pending) }).count(where: { $0 })
    }

    /// Merges the backend's sessions after login (SolidFocus Flow 2 step 4): unknown ones are
    /// stored as `uploaded`; a local session the backend already holds is `uploaded` too.
    public func mergeDownloaded(_ records: [SessionRecord]) async throws -> (added: Int, alreadyHeld: Int) {
        let now = clock.now()
        let sessions = records.map { QueuedSession($0, origin: .server, status: .uploaded, at: now) }
        let merged = try await write { db in
            var added = 0
            for session in sessions where try session.insertIfNew(db) {
                added += 1
            }
            var marked = 0
            for start in stride(from: 0, to: sessions.count, by: 500) {
                let ids = sessions[start..<min(start + 500, sessions.count)].map(\.sessionID)
                marked += try QueuedSession.filter(keys: ids).filter { $0.uploadStatus != UploadStatus.uploaded }.updateAll(db) {
                    [$0.uploadStatus.set(to: UploadStatus.uploaded), $0.lastError.set(to: nil), $0.updatedAt.set(to: now.millisecondsSince1970)]
                }
            }
            return (added, marked)
        }
        if merged.1 > 0 { await compactJournal() }
        return merged
    }

    /// Stores sessions in one transaction, each with its origin and status; a session id
    /// already here is left alone. Returns which were new.
    func importSessions(_ sessions: [(SessionRecord, SessionOrigin, UploadStatus)]) async throws -> [Bool] {
        let now = clock.now()
        let rows = sessions.map { QueuedSession($0, origin: $1, status: $2, at: now) }
        let added = try await write { db in try rows.map { try $0.insertIfNew(db) } }
        // New pending sessions (salvaged ones) get their second copy like any finished session.
        let copies = zip(sessions, added).filter { $0.1 && $0.0.2 == .pending }.map { SessionJournal.Entry(record: $0.0.0, origin: $0.0.1) }
        await keepSecondCopy(copies)
        return added
    }

    /// Up to `limit` pending sessions, oldest first (`started_at`, then `session_id`),
    /// starting after `cursor`; a session whose dates wait for a true clock is not among them.
    public func pendingBatch(after cursor: QueueCursor?, limit: Int) async throws -> [PendingSession] {
        try await read { db in
            var pending = QueuedSession.filter { $0.uploadStatus == UploadStatus.pending && $0.dates != SessionDates.waiting }
            if let cursor {
                // A row value, so that the search runs along `sessions_by_status`.
                pending = pending.filter(literal: "(started_at, session_id) > (\(cursor.startedAt.millisecondsSince1970), \(cursor.sessionID))")
            }
            return try pending.order { [$0.startedAt, $0.sessionID] }.limit(limit)
                .select(PendingSession.columns).asRequest(of: PendingSession.self).fetchAll(db)
        }
    }

    /// Applies one batch's per-session results in one transaction.
    /// Sessions that went up take the series beyond the newest ``GatewayStore/defaultSeriesRetention``
    /// uploaded ones with them, in the same transaction.
    public func record(_ outcomes: [String: SessionOutcome]) async throws {
        let now = clock.now()
        let retention = seriesRetention
        try await write { db in
            for (id, outcome) in outcomes {
                let session = QueuedSession.filter(key: id)
                let failed = session.filter { $0.uploadStatus == UploadStatus.pending }
                switch outcome {
                case .uploaded:
                    try session.updateAll(db) {
                        [$0.uploadStatus.set(to: UploadStatus.uploaded), $0.lastError.set(to: nil), $0.updatedAt.set(to: now.millisecondsSince1970)]
                    }
                case .retry(let error):
                    try Self.recordFailure(failed, .pending, rejected: true, error, now, db)
                case .dead(let error):
                    try Self.recordFailure(failed, .dead, rejected: true, error, now, db)
                case .callFailed(let error):
                    try Self.recordFailure(failed, .pending, rejected: false, error, now, db)
                }
            }
            if outcomes.values.contains(where: { if case .uploaded = $0 { true } else { false } }) {
                _ = try Self.pruneSeries(retention: retention, now: now, db)
            }
        }
        // The backend holds them now: their second copies go.
        if outcomes.values.contains(where: { if case .uploaded = $0 { true } else { false } }) { await compactJournal() }
    }

    /// One failed attempt (SolidFocus Flow 4: `upload_retry_count++`); a rejection of the
    /// session itself counts towards the dead-letter state too.
    private static func recordFailure(
        _ session: QueryInterfaceRequest<QueuedSession>, _ status: UploadStatus, rejected: Bool, _ error: String, _ now: UTCTime,
        _ db: Database
    ) throws {
        try session.updateAll(db) {
            [$0.uploadStatus.set(to: status), $0.retryCount += 1, $0.rejectionCount += (rejected ? 1 : 0), $0.lastError.set(to: error),
             $0.updatedAt.set(to: now.millisecondsSince1970)]
        }
    }

    /// A call that failed as a whole (network, timeout, 5xx) leaves its batch pending, each
    /// session's `retry_count + 1` (SolidFocus Flow 4: `upload_retry_count++`).
    public func recordFailedCall(sessionIDs: [String], error: String) async throws {
        try await record(Dictionary(uniqueKeysWithValues: sessionIDs.map { ($0, SessionOutcome.callFailed(error: error)) }))
    }

    /// Moves every dead-letter session back to pending with a fresh retry count, after an
    /// operator fixed the cause. Returns how many moved.
    @discardableResult
    public func retryDead() async throws -> Int {
        let now = clock.now()
        return try await write { db in
            try QueuedSession.filter { $0.uploadStatus == UploadStatus.dead }.updateAll(db) {
                [$0.uploadStatus.set(to: UploadStatus.pending), $0.retryCount.set(to: 0), $0.rejectionCount.set(to: 0),
                 $0.updatedAt.set(to: now.millisecondsSince1970)]
            }
        }
    }

    public func counts() async throws -> QueueCounts {
        try await read(Self.counts)
    }

    static func counts(_ db: Database) throws -> QueueCounts {
        var counts = QueueCounts()
        for row in try Row.fetchAll(db, sql: "SELECT upload_status, COUNT(*) AS count FROM sessions GROUP BY upload_status") {
            let count: Int = row["count"]
            switch UploadStatus(rawValue: row["upload_status"]) {
            case .pending: counts.pending = count
            case .uploaded: counts.uploaded = count
            case .dead: counts.dead = count
            case nil: break
            }
        }
        return counts
    }

    /// Every session, oldest first, optionally only those in `status`.
    public func sessions(status: UploadStatus? = nil) async throws -> [StoredSession] {
        try await read { db in
            let filter: SQL = if let status { "WHERE upload_status = \(status)" } else { "" }
            return try Self.storedSessions(db, "\(filter) ORDER BY started_at, session_id")
        }
    }

    /// The newest `limit` sessions, newest first: the dashboard's "last sessions".
    public func recentSessions(limit: Int) async throws -> [StoredSession] {
        try await read { db in
            try Self.storedSessions(db, "ORDER BY started_at DESC, session_id DESC LIMIT \(limit)")
        }
    }

    /// One session's row, or `nil` for an id the queue does not hold.
    public func session(id: String) async throws -> StoredSession? {
        try await read { db in try Self.storedSessions(db, "WHERE session_id = \(id)").first }
    }

    /// The queue's rows as listed: the machine from the summary's `detail` (when the summary
    /// has one: a downloaded session may not), and whether a plot series is held.
    private static func storedSessions(_ db: Database, _ clauses: SQL) throws -> [StoredSession] {
        try StoredSession.fetchAll(
            db,
            SQLRequest(literal: """
                SELECT session_id, started_at, duration, total_energy, total_distance, upload_status, retry_count,
                rejection_count, last_error, origin = \(SessionOrigin.server) AS downloaded,
                CASE WHEN json_valid(summary) AND json_type(summary, '$.detail.name') = 'text' THEN json_extract(summary, '$.detail.name') END AS machine_name,
                CASE WHEN json_valid(summary) AND json_type(summary, '$.detail.type') = 'text' THEN json_extract(summary, '$.detail.type') END AS machine_type,
                EXISTS (SELECT 1 FROM session_series WHERE session_series.session_id = sessions.session_id) AS has_series
                FROM sessions \(clauses)
                """))
    }

    /// The stored JSON of one session, as uploaded.
    public func sessionJSON(id: String) async throws -> String? {
        try await read { db in try QueuedSession.filter(key: id).select({ $0.summary }, as: String.self).fetchOne(db) }
    }
}
