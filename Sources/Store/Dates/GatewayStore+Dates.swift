import GRDB
public import Workout

/// Dates that are true (contract §5): finished sessions recorded while the wall clock was not
/// known to be true wait, unuploaded, until a true clock dates them from where they lay on their
/// boot's monotonic clock, or until the wait is over and they are dated as well as can be.
extension GatewayStore {
    /// How many pending sessions wait for their dates, and how many went up, or will, with
    /// estimated ones.
    public func undatedSessions() async throws -> UndatedSessions {
        try await read { db in
            var counts = UndatedSessions()
            for row in try Row.fetchAll(
                db, sql: "SELECT dates, COUNT(*) AS count FROM sessions WHERE upload_status = 'pending' AND dates != 'true' GROUP BY dates")
            {
                if (row["dates"] as String) == SessionDates.waiting.rawValue { counts.waiting = row["count"] } else { counts.estimated = row["count"] }
            }
            return counts
        }
    }

    /// The end of the latest session recorded here with true dates: a wall clock that reads
    /// earlier is wrong.
    public func latestTrueEnd() async throws -> UTCTime? {
        try await read { db in
            try QueuedSession.filter { $0.origin == SessionOrigin.gateway && $0.dates == SessionDates.true }
                .select({ max($0.endedAt) }, as: Int64.self).fetchOne(db).map { UTCTime(millisecondsSince1970: $0) }
        }
    }

    /// Dates the pending sessions recorded in `boot` that are not truly dated yet: each starts
    /// at its `boot_start` plus `offset` (wall minus `CLOCK_BOOTTIME`, milliseconds).
    ///
    /// With `isTrue` (a true clock's offset) waiting and estimated sessions alike become `true`.
    /// Otherwise (the wait is over, the clock reads past its floor) waiting sessions become
    /// `estimated`, none starting before `floor` or its machine's session before it ended.
    /// Returns how many were dated.
    @discardableResult
    public func dateSessions(boot: BootID, offset: Int64, isTrue: Bool, floor: UTCTime) async throws -> Int {
        let now = clock.now()
        let states: [SessionDates] = isTrue ? [.waiting, .estimated] : [.waiting]
        return try await write { db in
            let pending = QueuedSession.filter { $0.uploadStatus == UploadStatus.pending && $0.bootID == boot.value && $0.bootStart != nil }
            let rows = try QueuedRow.fetchAll(db, pending.filter { states.contains($0.dates) })
            for row in rows {
                let start = UTCTime(millisecondsSince1970: (row.session.bootStart ?? 0) + offset)
                try Self.redate(row, start: start, dates: isTrue ? .true : .estimated, floor: isTrue ? nil : floor, now: now, db)
            }
            return rows.count
        }
    }

    /// The wait is over for pending sessions recorded in another boot than `current` (which no
    /// clock of this boot can date): they keep the dates their own clock gave, none starting
    /// before `floor` or its machine's session before it ended, and become `estimated`.
    @discardableResult
    public func estimateOtherBoots(current: BootID?, floor: UTCTime) async throws -> Int {
        let now = clock.now()
        let current = current?.value ?? ""
        return try await write { db in
            let waiting = QueuedSession.filter { $0.uploadStatus == UploadStatus.pending && $0.dates == SessionDates.waiting }
            let rows = try QueuedRow.fetchAll(db, waiting.filter { $0.bootID == nil || $0.bootID != current })
            for row in rows {
                try Self.redate(row, start: row.session.startedAt, dates: .estimated, floor: floor, now: now, db)
            }
            return rows.count
        }
    }

    /// What the daemon last knew of the wall clock (see ``StoredWallClock``).
    public func wallClock() async throws -> StoredWallClock? {
        try await read { db in try WallClockRow.fetchOne(db)?.state }
    }

    public func saveWallClock(_ state: StoredWallClock) async throws {
        let row = WallClockRow(state, at: clock.now())
        try await write { db in try row.upsert(db) }
    }

    /// Gives one session the start `start` (whole seconds; the end follows from its elapsed
    /// time), rewriting its stored JSON, and the state `dates`. With a `floor`, an estimate
    /// starts no earlier than it, nor than the end of the latest session recorded before it on
    /// the same machine, so that it never overlaps its predecessor. A summary that cannot be read
    /// keeps its dates and stops waiting: the upload reports it.
    private static func redate(_ row: QueuedRow, start: UTCTime, dates: SessionDates, floor: UTCTime?, now: UTCTime, _ db: Database) throws {
        var session = row.session
        session.dates = dates
        session.updatedAt = now
        guard var summary = try? SessionSummary(json: session.summary) else {
            return try session.update(db, columns: [QueuedSession.Columns.dates, QueuedSession.Columns.updatedAt])
        }
        summary.startedAt = start.wholeSeconds
        if let floor {
            let predecessor = try Int64.fetchOne(
                db,
                sql: """
                    SELECT MAX(ended_at) FROM sessions WHERE rowid < ? AND origin = 'gateway' AND json_valid(summary)
                    AND json_extract(summary, '$.detail.address') = ?
                    """,
                arguments: [row.rowid, summary.detail.machine.address])
            let notBefore = max(floor, UTCTime(millisecondsSince1970: predecessor ?? .min))
            if summary.startedAt < notBefore {
                summary.startedAt = notBefore.wholeSeconds == notBefore ? notBefore : notBefore.wholeSeconds.adding(seconds: 1)
            }
        }
        summary.endedAt = summary.startedAt.adding(seconds: summary.detail.elapsed)
        summary.detail.clockUnsynchronised = dates != .true
        session.startedAt = summary.startedAt
        session.endedAt = summary.endedAt
        session.summary = summary.jsonString
        try session.update(db)
    }
}

/// A queue row with its rowid, the order sessions were queued in, as dating reads them oldest
/// first: a session's predecessor on its machine is the latest queued before it.
struct QueuedRow: Decodable, FetchableRecord {
    var rowid: Int64
    /// Decoded from the row's own columns.
    var session: QueuedSession

    static func fetchAll(_ db: Database, _ sessions: QueryInterfaceRequest<QueuedSession>) throws -> [QueuedRow] {
        try sessions.select(AllColumns(), Column.rowID).order(Column.rowID).asRequest(of: QueuedRow.self).fetchAll(db)
    }
}
