import GRDB
public import Workout
import Foundation

/// The open sessions' checkpoints (contract §5: "every few seconds, against a crash"), one per
/// session, as JSON of ``SessionSnapshot``.
///
/// Keyed by session, not by machine (migration `v3-checkpoints-by-session`): a checkpoint
/// stays until its session is queued or dropped, whatever the machine rides next. While a
/// finished session cannot be stored (a full disk), its checkpoint is what keeps it across a
/// restart, and the machine's next session must not take its place. A machine may therefore
/// have several checkpoints: the daemon's restore closes all but the newest.
extension GatewayStore: SessionCheckpointStore {
    public func save(_ snapshot: SessionSnapshot) async throws {
        try await saveAll([snapshot])
    }

    /// Saves several sessions' checkpoints in one transaction (one `fdatasync` instead of one
    /// each), with the plot points gathered since the last batch: all of them or, if it fails,
    /// none, so the caller can keep them all for the next try. A checkpoint of a session the
    /// queue already holds is not written: it would bring a finished session back at the next
    /// start.
    ///
    /// A periodic write: while the reserve is given back for finished sessions, it is refused
    /// before it is tried (``StoreReserve``).
    public func saveAll(_ snapshots: [SessionSnapshot], series: [SeriesChunk] = []) async throws {
        guard !snapshots.isEmpty || !series.isEmpty else { return }
        let now = clock.now().millisecondsSince1970
        let encoder = JSONEncoder()
        let rows = try snapshots.map { snapshot in
            (snapshot.sessionID, snapshot.machine.address, String(decoding: try encoder.encode(snapshot), as: UTF8.self), snapshot.savedAt.millisecondsSince1970)
        }
        let chunks = try Self.encode(series)
        try await write(.periodic) { db in
            let upsert = try db.cachedStatement(
                sql: """
                    INSERT INTO checkpoints (session_id, machine_address, snapshot, saved_at)
                    SELECT ?1, ?2, ?3, ?4 WHERE NOT EXISTS (SELECT 1 FROM sessions WHERE session_id = ?1)
                    ON CONFLICT (session_id) DO UPDATE SET machine_address = excluded.machine_address,
                    snapshot = excluded.snapshot, saved_at = excluded.saved_at
                    """)
            for (sessionID, address, body, savedAt) in rows {
                try upsert.execute(arguments: [sessionID, address, body, savedAt])
            }
            for chunk in chunks { try Self.appendSeries(chunk, finished: false, now: now, db) }
        }
    }

    /// The machine's newest checkpoint.
    public func load(machineAddress: String) async throws -> SessionSnapshot? {
        let body = try await read { db in
            try String.fetchOne(
                db, sql: "SELECT snapshot FROM checkpoints WHERE machine_address = ? ORDER BY saved_at DESC, session_id DESC LIMIT 1",
                arguments: [machineAddress])
        }
        return try body.map(Self.decodeSnapshot)
    }

    /// Every checkpoint, by machine, oldest first within a machine.
    public func loadAll() async throws -> [SessionSnapshot] {
        let bodies = try await read { db in
            try String.fetchAll(db, sql: "SELECT snapshot FROM checkpoints ORDER BY machine_address, saved_at, session_id")
        }
        return try bodies.map(Self.decodeSnapshot)
    }

    /// How many open sessions are checkpointed: sessions not in the queue yet.
    public func checkpointCount() async throws -> Int {
        try await read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM checkpoints") ?? 0 }
    }

    public func remove(machineAddress: String, sessionID: String) async throws {
        try await write { db in
            try Self.removeCheckpoint(db, machineAddress: machineAddress, sessionID: sessionID)
            try Self.removeOpenSeries(db, sessionID: sessionID)
        }
    }

    static func removeCheckpoint(_ db: Database, machineAddress: String, sessionID: String) throws {
        try db.execute(
            sql: "DELETE FROM checkpoints WHERE session_id = ? AND machine_address = ?", arguments: [sessionID, machineAddress])
    }

    /// A checkpoint from another layout is an error the caller reports, never a session
    /// silently forgotten.
    private static func decodeSnapshot(_ body: String) throws -> SessionSnapshot {
        let snapshot: SessionSnapshot
        do {
            snapshot = try JSONDecoder().decode(SessionSnapshot.self, from: Data(body.utf8))
        } catch {
            throw StoreError.badRecord(what: "checkpoint", reason: "\(error)")
        }
        guard SessionSnapshot.readableVersions.contains(snapshot.version) else {
            throw StoreError.badRecord(what: "checkpoint", reason: "layout version \(snapshot.version), expected at most \(SessionSnapshot.currentVersion)")
        }
        return snapshot
    }
}
