import Foundation
import GRDB
public import Workout

/// What `ftms-bridge salvage` did with one damaged file.
public struct SalvageReport: Sendable, Hashable {
    /// The file read, as it was named when read.
    public var path: String
    /// Sessions read out of it, open ones closed included.
    public var sessionsRead = 0
    /// New in the queue as pending: they go up with the next upload.
    public var queuedPending = 0
    /// New in the queue as uploaded (the damaged store had them so): kept for the stats.
    public var queuedUploaded = 0
    /// Already in the queue: left as they are (the session id keeps each once).
    public var alreadyQueued = 0
    /// Open sessions' checkpoints closed as finished sessions (counted in ``sessionsRead``).
    public var openSessionsClosed = 0
    /// Row ids on pages that could not be read.
    public var skippedRows: Int64 = 0
    /// Rows read that held no session.
    public var malformedRows = 0
    /// Its header was damaged and rebuilt in the scratch copy read.
    public var headerRebuilt = false
    /// Sessions that only the page scan found (``SessionRowScan``): rows no B-tree search
    /// reaches any more (counted in ``sessionsRead``).
    public var foundByPageScan = 0
    /// SQLite could read nothing of the file: what was read, the page scan read.
    public var unreadableBySQLite = false
    /// Sessions put back from the session journal (not counted in ``sessionsRead``).
    public var requeuedFromJournal = 0
    /// The journal's damaged stretches, one line each.
    public var journalWarnings: [String] = []
}

extension GatewayStore {
    /// Reads every readable session out of the damaged database at `path` into this store's
    /// queue: through SQLite row by row (``DamagedStoreReader``), and off every page of the file
    /// and its WAL whatever B-tree reaches them (``SessionRowScan``). Pending and dead-letter
    /// sessions go in as pending, uploaded ones as uploaded (a session any copy has as uploaded
    /// counts as uploaded), open sessions' checkpoints closed as finished sessions (pending).
    /// The session journal's sessions not in the queue are put back too. A session already in
    /// the queue is left as it is, so salvaging twice, or a session also uploaded from
    /// elsewhere, is still one session at the backend. Throws when neither SQLite nor the page
    /// scan finds anything in the file.
    public func salvage(from path: String, rules: SessionRules = SessionRules()) async throws -> SalvageReport {
        guard (path as NSString).standardizingPath != (self.path as NSString).standardizingPath else {
            throw StoreError.unreadable(path: path, reason: "this is the live database; salvage reads a damaged one moved aside")
        }
        var report = SalvageReport(path: path)
        let journal = try await requeueFromJournal()
        report.requeuedFromJournal = journal.requeued
        report.journalWarnings = journal.warnings
        let contents: DamagedStoreReader.Contents
        let scanned = SessionRowScan.scan(path)
        do {
            contents = try DamagedStoreReader(path: path).read()
        } catch {
            guard !scanned.sessions.isEmpty else { throw error }
            contents = DamagedStoreReader.Contents()
            report.unreadableBySQLite = true
        }
        report.skippedRows = contents.skippedRows
        report.malformedRows = contents.malformedRows + (report.unreadableBySQLite ? scanned.malformedRows : 0)
        report.headerRebuilt = contents.headerRebuilt
        var sessions = contents.sessions
        var index = Dictionary(sessions.enumerated().map { ($1.record.sessionID, $0) }, uniquingKeysWith: { first, _ in first })
        for session in scanned.sessions {
            if let held = index[session.record.sessionID] {
                if session.uploaded { sessions[held].uploaded = true }
            } else {
                index[session.record.sessionID] = sessions.count
                sessions.append(session)
                report.foundByPageScan += 1
            }
        }
        for snapshot in contents.checkpoints {
            guard case .finished(_, let summary) = SessionEngine.closing(snapshot, rules: rules) else { continue }
            sessions.append(SalvagedSession(record: SessionRecord(summary), uploaded: false, origin: .gateway))
            report.openSessionsClosed += 1
        }
        report.sessionsRead = sessions.count
        let (pending, uploaded, held) = try await importSalvaged(sessions)
        report.queuedPending = pending
        report.queuedUploaded = uploaded
        report.alreadyQueued = held
        return report
    }

    /// Stores salvaged sessions in one transaction; a session id already here is left alone.
    public func importSalvaged(_ sessions: [SalvagedSession]) async throws -> (pending: Int, uploaded: Int, alreadyHeld: Int) {
        let new = try await importSessions(sessions.map { ($0.record, $0.origin, $0.uploaded ? .uploaded : .pending) })
        let added = zip(sessions, new).filter(\.1).map(\.0)
        return (added.count(where: { !$0.uploaded }), added.count(where: \.uploaded), sessions.count - added.count)
    }
}
