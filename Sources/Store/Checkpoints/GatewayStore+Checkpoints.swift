import GRDB
public import Workout
import Foundation

/// The open sessions' checkpoints (contract §5: "every few seconds, against a crash"), one per
/// machine, as JSON of ``SessionSnapshot``.
extension GatewayStore: SessionCheckpointStore {
    public func save(_ snapshot: SessionSnapshot) async throws {
        try await saveAll([snapshot])
    }

    /// Saves several machines' checkpoints in one transaction (one `fdatasync` instead of one
    /// each), with the plot points gathered since the last batch: all of them or, if it fails,
    /// none, so the caller can keep them all for the next try.
    public func saveAll(_ snapshots: [SessionSnapshot], series: [SeriesChunk] = []) async throws {
        guard !snapshots.isEmpty || !series.isEmpty else { return }
        let now = clock.now().millisecondsSince1970
        let encoder = JSONEncoder()
        let rows = try snapshots.map { snapshot in
            (snapshot.machine.address, snapshot.sessionID, String(decoding: try encoder.encode(snapshot), as: UTF8.self), snapshot.savedAt.millisecondsSince1970)
        }
        let chunks = try Self.encode(series)
        try await write { db in
            for (address, sessionID, body, savedAt) in rows {
                try db.execute(
                    sql: """
                        INSERT INTO checkpoints (machine_address, session_id, snapshot, saved_at) VALUES (?, ?, ?, ?)
                        ON CONFLICT (machine_address) DO UPDATE SET session_id = excluded.session_id,
                        snapshot = excluded.snapshot, saved_at = excluded.saved_at
                        """,
                    arguments: [address, sessionID, body, savedAt])
            }
            for chunk in chunks { try Self.appendSeries(chunk, finished: false, now: now, db) }
        }
    }

    public func load(machineAddress: String) async throws -> SessionSnapshot? {
        let body = try await read { db in
            try String.fetchOne(db, sql: "SELECT snapshot FROM checkpoints WHERE machine_address = ?", arguments: [machineAddress])
        }
        return try body.map(Self.decodeSnapshot)
    }

    public func loadAll() async throws -> [SessionSnapshot] {
        let bodies = try await read { db in
            try String.fetchAll(db, sql: "SELECT snapshot FROM checkpoints ORDER BY machine_address")
        }
        return try bodies.map(Self.decodeSnapshot)
    }

    public func remove(machineAddress: String, sessionID: String) async throws {
        try await write { db in
            try Self.removeCheckpoint(db, machineAddress: machineAddress, sessionID: sessionID)
            try Self.removeOpenSeries(db, sessionID: sessionID)
        }
    }

    static func removeCheckpoint(_ db: Database, machineAddress: String, sessionID: String) throws {
        try db.execute(
            sql: "DELETE FROM checkpoints WHERE machine_address = ? AND session_id = ?", arguments: [machineAddress, sessionID])
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
