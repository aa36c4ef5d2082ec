import GRDB
public import Workout

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
    /// start. A session handed over to another gateway and checkpointed here again is carried
    /// on here again: its handed-over mark goes (``handOver(sessionID:machineAddress:to:)``).
    ///
    /// A periodic write: while the reserve is given back for finished sessions, it is refused
    /// before it is tried (``StoreReserve``).
    ///
    /// Written through two cached statements, every few seconds for every open session: the
    /// row's values are the ones `upsert` writes (the snapshot as GRDB's JSON of a nested
    /// value, the time as its milliseconds), without the SQL made, prepared and authorised
    /// again for each row and the snapshot encoded twice (GRDB tries a single value first).
    public func saveAll(_ snapshots: [SessionSnapshot], series: [SeriesChunk] = []) async throws {
        guard !snapshots.isEmpty || !series.isEmpty else { return }
        let now = clock.now()
        let rows = snapshots.map(CheckpointRow.init)
        try await write(.periodic) { db in
            if !rows.isEmpty {
                let queued = try db.cachedStatement(sql: Self.queuedSQL)
                let upsert = try db.cachedStatement(sql: Self.upsertCheckpointSQL)
                let carriedOn = try db.cachedStatement(sql: Self.carriedOnAgainSQL)
                let json = CheckpointRow.databaseJSONEncoder(for: CheckpointRow.Columns.snapshot.rawValue)
                for row in rows where try Int.fetchOne(queued, arguments: [row.sessionID]) == nil {
                    let snapshot = String(decoding: try json.encode(row.snapshot), as: UTF8.self)
                    try upsert.execute(arguments: [row.sessionID, row.machineAddress, snapshot, row.savedAt.millisecondsSince1970])
                    try carriedOn.execute(arguments: [row.sessionID])
                }
            }
            for chunk in series { try Self.appendSeries(chunk, finished: false, now: now, db) }
        }
    }

    /// Whether the queue holds the session (a checkpoint of it would bring it back).
    private static let queuedSQL = "SELECT 1 FROM \(QueuedSession.databaseTableName) WHERE \(QueuedSession.Columns.sessionID.rawValue) = ?"

    /// `CheckpointRow.upsert`: one row per session, replaced whole.
    private static let upsertCheckpointSQL = """
        INSERT INTO \(CheckpointRow.databaseTableName) (session_id, machine_address, snapshot, saved_at) VALUES (?, ?, ?, ?)
        ON CONFLICT (session_id) DO UPDATE SET machine_address = excluded.machine_address, snapshot = excluded.snapshot, saved_at = excluded.saved_at
        """

    /// The machine's newest checkpoint.
    public func load(machineAddress: String) async throws -> SessionSnapshot? {
        try await read(decoding: "checkpoint") { db in
            try CheckpointRow.filter { $0.machineAddress == machineAddress }.order { [$0.savedAt.desc, $0.sessionID.desc] }.fetchOne(db)
        }.map(Self.checkedSnapshot)
    }

    /// Every checkpoint, by machine, oldest first within a machine.
    public func loadAll() async throws -> [SessionSnapshot] {
        try await read(decoding: "checkpoint") { db in
            try CheckpointRow.order { [$0.machineAddress, $0.savedAt, $0.sessionID] }.fetchAll(db)
        }.map(Self.checkedSnapshot)
    }

    /// How many open sessions are checkpointed: sessions not in the queue yet.
    public func checkpointCount() async throws -> Int {
        try await read { db in try CheckpointRow.fetchCount(db) }
    }

    public func remove(machineAddress: String, sessionID: String) async throws {
        try await write { db in
            try Self.removeCheckpoint(db, machineAddress: machineAddress, sessionID: sessionID)
            try Self.removeOpenSeries(db, sessionID: sessionID)
        }
    }

    static func removeCheckpoint(_ db: Database, machineAddress: String, sessionID: String) throws {
        try CheckpointRow.filter(key: sessionID).filter { $0.machineAddress == machineAddress }.deleteAll(db)
    }

    /// A checkpoint from another layout is an error the caller reports, never a session
    /// silently forgotten.
    private static func checkedSnapshot(_ row: CheckpointRow) throws -> SessionSnapshot {
        guard SessionSnapshot.readableVersions.contains(row.snapshot.version) else {
            throw StoreError.badRecord(
                what: "checkpoint", reason: "layout version \(row.snapshot.version), expected at most \(SessionSnapshot.currentVersion)")
        }
        return row.snapshot
    }
}
