import GRDB
import Workout

/// What the store's open found in the session journal.
public struct JournalReplay: Sendable, Hashable {
    /// Sessions the journal held and the database did not: back in the queue as pending.
    public var requeued = 0
    /// One line per damaged stretch of the journal (skipped), or why it could not be read.
    public var warnings: [String] = []

    public init(requeued: Int = 0, warnings: [String] = []) {
        self.requeued = requeued
        self.warnings = warnings
    }
}

extension GatewayStore {
    /// Appends the second copy of sessions the database has just committed (``SessionJournal``),
    /// on the database's own queue so that a slow card's fsync blocks no task. A journal that
    /// cannot be written costs the second copy, not the session: it is in the database, as it
    /// was before there was a journal (``SessionJournal/lastFailure`` says so).
    func keepSecondCopy(_ entries: [SessionJournal.Entry]) async {
        guard let journal, !entries.isEmpty else { return }
        try? await database.writeWithoutTransaction { _ in try journal.append(entries) }
    }

    /// Drops from the journal the sessions the database has as uploaded: the backend holds
    /// them. Failing leaves them there, which costs room, never a session.
    func compactJournal() async {
        guard let journal else { return }
        try? await database.writeWithoutTransaction { db in
            try Self.compact(journal, db)
        }
    }

    /// The journal's sessions not in the queue, put back as pending; then the journal compacted.
    /// What the store's open and `salvage` run: idempotent (a session id in the queue is left as
    /// it is), and a session the database has as uploaded is not sent again.
    @discardableResult
    public func requeueFromJournal() async throws -> JournalReplay {
        guard let journal else { return JournalReplay() }
        let now = clock.now()
        return try await database.writeWithoutTransaction { db in try Self.replay(journal, db, now: now) }
    }

    static func replay(_ journal: SessionJournal, _ db: Database, now: UTCTime) throws -> JournalReplay {
        let contents = journal.read()
        var replay = JournalReplay(warnings: contents.warnings)
        guard !contents.entries.isEmpty else { return replay }
        try db.inTransaction {
            for entry in contents.entries where try QueuedSession(entry.record, origin: entry.origin, status: .pending, at: now).insertIfNew(db) {
                replay.requeued += 1
            }
            return .commit
        }
        try? compact(journal, db)
        return replay
    }

    private static func compact(_ journal: SessionJournal, _ db: Database) throws {
        let ids = journal.read().entries.map(\.record.sessionID)
        var acknowledged = Set<String>()
        for start in stride(from: 0, to: ids.count, by: 500) {
            let chunk = Array(ids[start..<min(start + 500, ids.count)])
            acknowledged.formUnion(
                try QueuedSession.filter(keys: chunk).filter { $0.uploadStatus == UploadStatus.uploaded }
                    .select({ $0.sessionID }, as: String.self).fetchAll(db))
        }
        try journal.remove(acknowledged)
    }
}
