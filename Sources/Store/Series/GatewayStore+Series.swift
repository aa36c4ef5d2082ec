import FTMS
import GRDB
import Workout
import Foundation

/// The per-session plot series: points gathered by the daemon's checkpoint batcher and written
/// in the checkpoints' own transaction (no `fdatasync` of their own), bound to the queued
/// session in the transaction that queues it, and pruned with the uploaded sessions.
extension GatewayStore {
    /// How many uploaded sessions keep their series by default: the newest 200, about 30 MB
    /// of hour-long sessions. Pending and dead-letter sessions always keep theirs.
    public static let defaultSeriesRetention = 200

    /// Appends `chunk` to its session's series, creating the series' header on its first points.
    /// `finished`: the session is being queued in this transaction, so the series is bound to it.
    /// A chunk with its points already JSON: encoded before the write transaction, with one
    /// encoder for the batch, so the writer's lock is not held for the encoding.
    struct EncodedChunk: Sendable {
        var sessionID: String
        var machine: MachineIdentity
        /// `nil` for no points (a finished session binding its series).
        var points: String?
    }

    static func encode(_ chunks: [SeriesChunk]) throws -> [EncodedChunk] {
        let encoder = JSONEncoder()
        return try chunks.map { chunk in
            EncodedChunk(
                sessionID: chunk.sessionID, machine: chunk.machine,
                points: chunk.points.isEmpty ? nil : String(decoding: try encoder.encode(chunk.points), as: UTF8.self))
        }
    }

    static func appendSeries(_ chunk: EncodedChunk, finished: Bool, now: Int64, _ db: Database) throws {
        try db.cachedStatement(
            sql: finished
                ? """
                    INSERT INTO session_series (session_id, machine_name, machine_type, finished, created_at) VALUES (?, ?, ?, 1, ?)
                    ON CONFLICT (session_id) DO UPDATE SET finished = 1
                    """
                : """
                    INSERT INTO session_series (session_id, machine_name, machine_type, finished, created_at) VALUES (?, ?, ?, 0, ?)
                    ON CONFLICT (session_id) DO NOTHING
                    """
        ).execute(arguments: [chunk.sessionID, chunk.machine.name, chunk.machine.type.rawValue, now])
        guard let body = chunk.points else { return }
        try db.cachedStatement(
            sql: """
                INSERT INTO session_series_chunks (session_id, chunk, points)
                SELECT ?, COALESCE(MAX(chunk) + 1, 0), ? FROM session_series_chunks WHERE session_id = ?
                """
        ).execute(arguments: [chunk.sessionID, body, chunk.sessionID])
    }

    /// An open session that was dropped (too short to keep) takes its series with it.
    static func removeOpenSeries(_ db: Database, sessionID: String) throws {
        try db.execute(sql: "DELETE FROM session_series WHERE session_id = ? AND finished = 0", arguments: [sessionID])
    }

    /// Keeps the series of the newest `retention` uploaded sessions and drops the others'; also
    /// drops open series begun over a day ago whose session has neither a checkpoint nor a
    /// queue row (a session closed while the store was failing). Returns how many series went.
    static func pruneSeries(retention: Int, now: Int64, _ db: Database) throws -> Int {
        try db.execute(
            sql: """
                DELETE FROM session_series WHERE session_id IN (
                    SELECT session_id FROM sessions WHERE upload_status = 'uploaded'
                    ORDER BY started_at DESC, session_id DESC LIMIT -1 OFFSET ?)
                """,
            arguments: [max(0, retention)])
        var removed = db.changesCount
        try db.execute(
            sql: """
                DELETE FROM session_series WHERE finished = 0 AND created_at < ?
                AND session_id NOT IN (SELECT session_id FROM checkpoints)
                AND session_id NOT IN (SELECT session_id FROM sessions)
                """,
            arguments: [now - 86_400_000])
        removed += db.changesCount
        return removed
    }

    /// Prunes series now (see ``pruneSeries(retention:now:_:)``); the uploader's results do it
    /// too, in their transaction.
    @discardableResult
    public func pruneSeries() async throws -> Int {
        let retention = seriesRetention
        let now = clock.now().millisecondsSince1970
        return try await write { db in try Self.pruneSeries(retention: retention, now: now, db) }
    }

    /// A session's series, open or finished; `nil` when the store has none (a session recorded
    /// before series were kept, downloaded from the backend, or pruned).
    public func series(sessionID: String) async throws -> StoredSeries? {
        let found = try await read { db -> ((name: String, type: String, finished: Bool), [String])? in
            guard let row = try Row.fetchOne(
                db, sql: "SELECT machine_name, machine_type, finished FROM session_series WHERE session_id = ?",
                arguments: [sessionID])
            else { return nil }
            let header = (name: row["machine_name"] as String, type: row["machine_type"] as String, finished: (row["finished"] as Int) == 1)
            let chunks = try String.fetchAll(
                db, sql: "SELECT points FROM session_series_chunks WHERE session_id = ? ORDER BY chunk", arguments: [sessionID])
            return (header, chunks)
        }
        guard let (header, chunks) = found else { return nil }
        let decoder = JSONDecoder()
        var points: [SeriesPoint] = []
        for chunk in chunks {
            do {
                points += try decoder.decode([SeriesPoint].self, from: Data(chunk.utf8))
            } catch {
                throw StoreError.badRecord(what: "series of session \(sessionID)", reason: "\(error)")
            }
        }
        // A restored session's first points may repeat a second stored before the crash.
        points.sort { $0.t < $1.t }
        var unique: [SeriesPoint] = []
        unique.reserveCapacity(points.count)
        for point in points where unique.last?.t != point.t { unique.append(point) }
        return StoredSeries(
            sessionID: sessionID, machineName: header.name, machineType: MachineType(rawValue: header.type) ?? .bike,
            finished: header.finished, points: unique)
    }

    /// How many series and chunks the store holds, and their points' bytes: what the figures
    /// in docs/dashboard.md measure.
    public func seriesFootprint() async throws -> (series: Int, chunks: Int, points: Int, bytes: Int) {
        try await read { db in
            let series = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM session_series") ?? 0
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
