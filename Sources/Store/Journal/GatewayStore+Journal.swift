import Foundation
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

    /// ``replay(_:_:now:)`` on `queue` as a store's open runs it: a journal that cannot be
    /// read into the queue is a warning, never a store that does not open.
    static func replaying(_ journal: SessionJournal, into queue: DatabaseQueue, now: UTCTime) -> JournalReplay {
        do {
            return try queue.writeWithoutTransaction { db in try replay(journal, db, now: now) }
        } catch {
            return JournalReplay(warnings: ["session journal \(journal.path): cannot put its sessions back in the queue: \(error)"])
        }
    }

    static func replay(_ journal: SessionJournal, _ db: Database, now: UTCTime) throws -> JournalReplay {
        // Which sessions it holds, cheaply; only those the database lacks are decoded.
        let ids = journal.sessionIDs()
        guard !ids.isEmpty else { return JournalReplay(warnings: journal.read().warnings) }
        let held = try statuses(of: ids, db)
        var replay = JournalReplay()
        if ids.contains(where: { held[$0] == nil }) {
            let contents = journal.read()
            replay.warnings = contents.warnings
            try db.inTransaction {
                for entry in contents.entries where held[entry.record.sessionID] == nil {
                    if try QueuedSession(entry.record, origin: entry.origin, status: .pending, at: now).insertIfNew(db) { replay.requeued += 1 }
                }
                return .commit
            }
        } else {
            replay.warnings = SessionJournal.frames(
                Array(FileManager.default.contents(atPath: journal.path) ?? Data()), name: journal.path).warnings
        }
        try? journal.remove(Set(held.filter { $0.value == UploadStatus.uploaded.rawValue }.keys))
        return replay
    }

    private static func compact(_ journal: SessionJournal, _ db: Database) throws {
        let held = try statuses(of: journal.sessionIDs(), db)
        try journal.remove(Set(held.filter { $0.value == UploadStatus.uploaded.rawValue }.keys))
    }

    /// The upload status of each of `ids` the database holds.
    private static func statuses(of ids: [String], _ db: Database) throws -> [String: String] {
        var statuses: [String: String] = [:]
        let unique = Array(Set(ids))
        for start in stride(from: 0, to: unique.count, by: 500) {
            let chunk = Array(unique[start..<min(start + 500, unique.count)])
            for row in try QueuedSession.filter(keys: chunk).select({ [$0.sessionID, $0.uploadStatus] }).asRequest(of: Row.self).fetchAll(db) {
                if let id = String.fromDatabaseValue(row[0]), let status = String.fromDatabaseValue(row[1]) { statuses[id] = status }
            }
        }
        return statuses
    }
}
