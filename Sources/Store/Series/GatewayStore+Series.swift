import FTMS
import GRDB
import Workout

/// The per-session plot series: points gathered by the `FinishedSessionKeeper` and
/// written in the checkpoints' own transaction (no `fdatasync` of their own), bound to the queued
/// session in the transaction that queues it, and pruned with the uploaded sessions.
extension GatewayStore {
    /// How many uploaded sessions keep their series by default: the newest 200, about 30 MB
    /// of hour-long sessions. Pending and dead-letter sessions always keep theirs.
    public static let defaultSeriesRetention = 200

    /// Appends `chunk` to its session's series, creating the series' header on its first points.
    /// `finished`: the session is being queued in this transaction, so the series is bound to it.
    /// A chunk without points only makes or binds the header.
    static func appendSeries(_ chunk: SeriesChunk, finished: Bool, now: UTCTime, _ db: Database) throws {
        let header = SeriesRow(
            sessionID: chunk.sessionID, machineName: chunk.machine.name, machineType: chunk.machine.type.rawValue, finished: finished,
            createdAt: now)
        try header.insert(db, onConflict: .ignore)
        if finished, db.changesCount == 0 {
            try SeriesRow.filter(key: chunk.sessionID).updateAll(db) { $0.finished.set(to: true) }
        }
        guard !chunk.points.isEmpty else { return }
        let last = try SeriesChunkRow.filter { $0.sessionID == chunk.sessionID }.select({ max($0.chunk) }, as: Int.self).fetchOne(db)
        try SeriesChunkRow(sessionID: chunk.sessionID, chunk: last.map { $0 + 1 } ?? 0, points: chunk.points).insert(db)
    }

    /// An open session that was dropped (too short to keep) takes its series with it.
    static func removeOpenSeries(_ db: Database, sessionID: String) throws {
        try SeriesRow.filter(key: sessionID).filter { !$0.finished }.deleteAll(db)
    }

    /// Keeps the series of the newest `retention` uploaded sessions and drops the others'; also
    /// drops open series begun over a day ago whose session has neither a checkpoint nor a
    /// queue row (a session closed while the store was failing). Returns how many series went.
    static func pruneSeries(retention: Int, now: UTCTime, _ db: Database) throws -> Int {
        let beyondRetention = QueuedSession.filter { $0.uploadStatus == UploadStatus.uploaded }
            .order { [$0.startedAt.desc, $0.sessionID.desc] }.limit(-1, offset: max(0, retention)).select { $0.sessionID }
        let checkpointed = CheckpointRow.select { $0.sessionID }
        let queued = QueuedSession.select { $0.sessionID }
        let dayAgo = now.adding(seconds: -86_400).millisecondsSince1970
        return try SeriesRow.filter { beyondRetention.contains($0.sessionID) }.deleteAll(db)
            + SeriesRow.filter { !$0.finished && $0.createdAt < dayAgo && !checkpointed.contains($0.sessionID) && !queued.contains($0.sessionID) }
            .deleteAll(db)
    }

    /// Prunes series now (see ``pruneSeries(retention:now:_:)``); the uploader's results do it
    /// too, in their transaction.
    @discardableResult
    public func pruneSeries() async throws -> Int {
        let retention = seriesRetention
        let now = clock.now()
        return try await write { db in try Self.pruneSeries(retention: retention, now: now, db) }
    }

    /// A session's series, open or finished; `nil` when the store has none (a session recorded
    /// before series were kept, downloaded from the backend, or pruned).
    public func series(sessionID: String) async throws -> StoredSeries? {
        let found = try await read(decoding: "series of session \(sessionID)") { db -> (SeriesRow, [SeriesChunkRow])? in
            guard let header = try SeriesRow.fetchOne(db, key: sessionID) else { return nil }
            return (header, try SeriesChunkRow.filter { $0.sessionID == sessionID }.order { $0.chunk }.fetchAll(db))
        }
        guard let (header, chunks) = found else { return nil }
        // A restored session's first points may repeat a second stored before the crash.
        let points = chunks.flatMap(\.points).sorted { $0.t < $1.t }
        var unique: [SeriesPoint] = []
        unique.reserveCapacity(points.count)
        for point in points where unique.last?.t != point.t { unique.append(point) }
        return StoredSeries(
            sessionID: sessionID, machineName: header.machineName, machineType: MachineType(rawValue: header.machineType) ?? .bike,
            finished: header.finished, points: unique)
    }

    /// How many series and chunks the store holds, and their points' bytes: what the figures
    /// in docs/dashboard.md measure.
    public func seriesFootprint() async throws -> (series: Int, chunks: Int, points: Int, bytes: Int) {
        try await read { db in
            let series = try SeriesRow.fetchCount(db)
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*), COALESCE(SUM(json_array_length(points)), 0), COALESCE(SUM(length(points)), 0)
                    FROM session_series_chunks
                    """)
            return (series, row?[0] ?? 0, row?[1] ?? 0, row?[2] ?? 0)
        }
    }
}
