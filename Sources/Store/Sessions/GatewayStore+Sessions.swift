import GRDB
public import Workout

extension GatewayStore {
    /// Stores a finished session as pending (SolidFocus Flow 4 step 2), and in the same
    /// transaction removes the checkpoint of the machine it was recorded on if the checkpoint
    /// still holds it: a crash between the two can neither lose the session nor resume it.
    ///
    /// Idempotent by `session_id`: storing a session again (a replayed capture, a retried
    /// hand-off) changes nothing. Returns whether the session was new.
    ///
    /// `series`: the session's plot points not yet stored; they are appended and the session's
    /// series is bound to it in the same transaction, so a crash keeps both or neither.
    ///
    /// `timing`: where the session lay on its boot's monotonic clock. A session whose dates are
    /// not true is kept `waiting`, and not uploaded, until it is dated (``dateSessions(boot:offset:)``).
    @discardableResult
    public func enqueue(
        _ summary: SessionSummary, machineAddress: String? = nil, series: SeriesChunk? = nil, timing: SessionTiming? = nil
    ) async throws -> Bool {
        let record = {
            var record = SessionRecord(summary)
            record.timing = timing
            return record
        }()
        let now = clock.now()
        let chunk = try Self.encode([series ?? SeriesChunk(sessionID: summary.sessionID, machine: summary.detail.machine, points: [])])[0]
        return try await write { db in
            if let machineAddress {
                try Self.removeCheckpoint(db, machineAddress: machineAddress, sessionID: summary.sessionID)
            }
            let added = try Self.insert(record, origin: "gateway", status: .pending, now: now, db)
            let hasSeries = try Bool.fetchOne(db, sql: "SELECT 1 FROM session_series WHERE session_id = ?", arguments: [summary.sessionID]) ?? false
            if series != nil || hasSeries {
                try Self.appendSeries(chunk, finished: true, now: now.millisecondsSince1970, db)
            }
            return added
        }
    }

    /// Stores many finished sessions as pending in one transaction (`replay --queue`), each
    /// with its plot series when `series` has one for its id. Returns how many were new.
    @discardableResult
    public func enqueue(_ summaries: [SessionSummary], series: [String: SeriesChunk] = [:]) async throws -> Int {
        let records = summaries.map(SessionRecord.init)
        guard !series.isEmpty else { return try await enqueue(records) }
        let now = clock.now()
        let chunks = Dictionary(try Self.encode(Array(series.values)).map { ($0.sessionID, $0) }, uniquingKeysWith: { first, _ in first })
        return try await write { db in
            var added = 0
            for record in records where try Self.insert(record, origin: "gateway", status: .pending, now: now, db) {
                added += 1
                if let chunk = chunks[record.sessionID] {
                    try Self.appendSeries(chunk, finished: true, now: now.millisecondsSince1970, db)
                }
            }
            return added
        }
    }

    /// ``enqueue(_:)-([SessionSummary])`` for records already in their upload form.
    @discardableResult
    public func enqueue(_ records: [SessionRecord]) async throws -> Int {
        let now = clock.now()
        return try await write { db in
            var added = 0
            for record in records where try Self.insert(record, origin: "gateway", status: .pending, now: now, db) {
                added += 1
            }
            return added
        }
    }

    /// Merges the backend's sessions after login (SolidFocus Flow 2 step 4): unknown ones are
    /// stored as `uploaded`; a local session the backend already holds is `uploaded` too.
    public func mergeDownloaded(_ records: [SessionRecord]) async throws -> (added: Int, alreadyHeld: Int) {
        let now = clock.now()
        return try await write { db in
            var added = 0
            for record in records where try Self.insert(record, origin: "server", status: .uploaded, now: now, db) {
                added += 1
            }
            let ids = records.map(\.sessionID)
            var marked = 0
            for chunk in stride(from: 0, to: ids.count, by: 500).map({ Array(ids[$0..<min($0 + 500, ids.count)]) }) {
                let marks = databaseQuestionMarks(count: chunk.count)
                try db.execute(
                    sql: """
                        UPDATE sessions SET upload_status = 'uploaded', last_error = NULL, updated_at = ?
                        WHERE upload_status != 'uploaded' AND session_id IN (\(marks))
                        """,
                    arguments: StatementArguments([now.millisecondsSince1970] + chunk))
                marked += db.changesCount
            }
            return (added, marked)
        }
    }

    /// Up to `limit` pending sessions, oldest first (`started_at`, then `session_id`),
    /// starting after `cursor`; a session whose dates wait for a true clock is not among them.
    public func pendingBatch(after cursor: QueueCursor?, limit: Int) async throws -> [PendingSession] {
        try await read { db in
            if let cursor {
                return try PendingSession.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT session_id, started_at, retry_count, rejection_count, summary FROM sessions
                            WHERE upload_status = 'pending' AND dates != 'waiting' AND (started_at, session_id) > (?, ?)
                            ORDER BY started_at, session_id LIMIT ?
                            """),
                    arguments: [cursor.startedAt.millisecondsSince1970, cursor.sessionID, limit])
            } else {
                return try PendingSession.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT session_id, started_at, retry_count, rejection_count, summary FROM sessions
                            WHERE upload_status = 'pending' AND dates != 'waiting' ORDER BY started_at, session_id LIMIT ?
                            """),
                    arguments: [limit])
            }
        }
    }

    /// Applies one batch's per-session results in one transaction.
    /// Sessions that went up take the series beyond the newest ``GatewayStore/defaultSeriesRetention``
    /// uploaded ones with them, in the same transaction.
    public func record(_ outcomes: [String: SessionOutcome]) async throws {
        let now = clock.now().millisecondsSince1970
        let retention = seriesRetention
        try await write { db in
            let uploaded = try db.cachedStatement(
                sql: "UPDATE sessions SET upload_status = 'uploaded', last_error = NULL, updated_at = ? WHERE session_id = ?")
            let failed = try db.cachedStatement(
                sql: """
                    UPDATE sessions SET upload_status = ?, retry_count = retry_count + 1,
                    rejection_count = rejection_count + ?, last_error = ?, updated_at = ?
                    WHERE session_id = ? AND upload_status = 'pending'
                    """)
            for (id, outcome) in outcomes {
                switch outcome {
                case .uploaded:
                    try uploaded.execute(arguments: [now, id])
                case .retry(let error):
                    try failed.execute(arguments: [UploadStatus.pending.rawValue, 1, error, now, id])
                case .dead(let error):
                    try failed.execute(arguments: [UploadStatus.dead.rawValue, 1, error, now, id])
                case .callFailed(let error):
                    try failed.execute(arguments: [UploadStatus.pending.rawValue, 0, error, now, id])
                }
            }
            if outcomes.values.contains(where: { if case .uploaded = $0 { true } else { false } }) {
                _ = try Self.pruneSeries(retention: retention, now: now, db)
            }
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
        let now = clock.now().millisecondsSince1970
        return try await write { db in
            try db.execute(
                sql: """
                    UPDATE sessions SET upload_status = 'pending', retry_count = 0, rejection_count = 0, updated_at = ?
                    WHERE upload_status = 'dead'
                    """,
                arguments: [now])
            return db.changesCount
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
            let filter = status.map { "WHERE upload_status = '\($0.rawValue)'" } ?? ""
            return try Self.storedSessions(db, "\(filter) ORDER BY started_at, session_id")
        }
    }

    /// The newest `limit` sessions, newest first: the dashboard's "last sessions".
    public func recentSessions(limit: Int) async throws -> [StoredSession] {
        try await read { db in
            try Self.storedSessions(db, "ORDER BY started_at DESC, session_id DESC LIMIT ?", [limit])
        }
    }

    /// One session's row, or `nil` for an id the queue does not hold.
    public func session(id: String) async throws -> StoredSession? {
        try await read { db in try Self.storedSessions(db, "WHERE session_id = ?", [id]).first }
    }

    private static func storedSessions(_ db: Database, _ clauses: String, _ arguments: StatementArguments = []) throws -> [StoredSession] {
        try StoredSession.fetchAll(
            db,
            sql: """
                SELECT session_id, started_at, duration, total_energy, total_distance, upload_status, retry_count,
                rejection_count, last_error, origin,
                CASE WHEN json_valid(summary) AND json_type(summary, '$.detail.name') = 'text' THEN json_extract(summary, '$.detail.name') END AS machine_name,
                CASE WHEN json_valid(summary) AND json_type(summary, '$.detail.type') = 'text' THEN json_extract(summary, '$.detail.type') END AS machine_type,
                EXISTS (SELECT 1 FROM session_series WHERE session_series.session_id = sessions.session_id) AS has_series
                FROM sessions \(clauses)
                """,
            arguments: arguments)
    }

    /// The stored JSON of one session, as uploaded.
    public func sessionJSON(id: String) async throws -> String? {
        try await read { db in try String.fetchOne(db, sql: "SELECT summary FROM sessions WHERE session_id = ?", arguments: [id]) }
    }

    static func insert(_ record: SessionRecord, origin: String, status: UploadStatus, now: UTCTime, _ db: Database) throws -> Bool {
        let waiting = record.timing.map { !$0.datesAreTrue } ?? false
        try db.cachedStatement(
            sql: """
                INSERT INTO sessions (session_id, started_at, ended_at, duration, total_energy, total_distance, summary,
                origin, upload_status, retry_count, created_at, updated_at, dates, boot_id, boot_start)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?) ON CONFLICT (session_id) DO NOTHING
                """
        ).execute(arguments: [
            record.sessionID, record.startedAt.millisecondsSince1970, record.endedAt.millisecondsSince1970,
            record.duration, record.totalEnergy, record.totalDistance, record.json, origin, status.rawValue,
            now.millisecondsSince1970, now.millisecondsSince1970, waiting ? SessionDates.waiting.rawValue : SessionDates.true.rawValue,
            record.timing?.boot?.value, record.timing.map { SessionDates.milliseconds($0.start) },
        ])
        return db.changesCount > 0
    }
}
