import Foundation
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
            try Int64.fetchOne(db, sql: "SELECT MAX(ended_at) FROM sessions WHERE origin = 'gateway' AND dates = 'true'")
                .map { UTCTime(millisecondsSince1970: $0) }
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
        let now = clock.now().millisecondsSince1970
        return try await write { db in
            let states = isTrue ? "'waiting', 'estimated'" : "'waiting'"
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT rowid, summary, boot_start FROM sessions
                    WHERE upload_status = 'pending' AND boot_id = ? AND boot_start IS NOT NULL AND dates IN (\(states))
                    ORDER BY rowid
                    """,
                arguments: [boot.value])
            for row in rows {
                let rowid: Int64 = row["rowid"]
                let start = UTCTime(millisecondsSince1970: (row["boot_start"] as Int64) + offset)
                try Self.redate(db, rowid: rowid, json: row["summary"], start: start, dates: isTrue ? .true : .estimated, floor: isTrue ? nil : floor, now: now)
            }
            return rows.count
        }
    }

    /// The wait is over for pending sessions recorded in another boot than `current` (which no
    /// clock of this boot can date): they keep the dates their own clock gave, none starting
    /// before `floor` or its machine's session before it ended, and become `estimated`.
    @discardableResult
    public func estimateOtherBoots(current: BootID?, floor: UTCTime) async throws -> Int {
        let now = clock.now().millisecondsSince1970
        return try await write { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT rowid, summary, started_at FROM sessions
                    WHERE upload_status = 'pending' AND dates = 'waiting' AND (boot_id IS NULL OR boot_id != ?)
                    ORDER BY rowid
                    """,
                arguments: [current?.value ?? ""])
            for row in rows {
                let start = UTCTime(millisecondsSince1970: row["started_at"])
                try Self.redate(db, rowid: row["rowid"], json: row["summary"], start: start, dates: .estimated, floor: floor, now: now)
            }
            return rows.count
        }
    }

    /// What the daemon last knew of the wall clock (see ``StoredWallClock``).
    public func wallClock() async throws -> StoredWallClock? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT boot_id, offset_ms, trusted_offset_ms, trust FROM wall_clock WHERE singleton = 1").map {
                StoredWallClock(boot: $0["boot_id"], offset: $0["offset_ms"], trustedOffset: $0["trusted_offset_ms"], trust: $0["trust"])
            }
        }
    }

    public func saveWallClock(_ state: StoredWallClock) async throws {
        let now = clock.now().millisecondsSince1970
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO wall_clock (singleton, boot_id, offset_ms, trusted_offset_ms, trust, updated_at) VALUES (1, ?, ?, ?, ?, ?)
                    ON CONFLICT (singleton) DO UPDATE SET boot_id = excluded.boot_id, offset_ms = excluded.offset_ms,
                    trusted_offset_ms = excluded.trusted_offset_ms, trust = excluded.trust, updated_at = excluded.updated_at
                    """,
                arguments: [state.boot, state.offset, state.trustedOffset, state.trust, now])
        }
    }

    /// Gives one session the start `start` (whole seconds; the end follows from its elapsed
    /// time), rewriting its stored JSON, and the state `dates`. With a `floor`, an estimate
    /// starts no earlier than it, nor than the end of the latest session recorded before it on
    /// the same machine, so that it never overlaps its predecessor. A summary that cannot be read
    /// keeps its dates and stops waiting: the upload reports it.
    private static func redate(
        _ db: Database, rowid: Int64, json: String, start: UTCTime, dates: SessionDates, floor: UTCTime?, now: Int64
    ) throws {
        guard var summary = try? JSONDecoder().decode(SessionSummary.self, from: Data(json.utf8)) else {
            try db.execute(sql: "UPDATE sessions SET dates = ?, updated_at = ? WHERE rowid = ?", arguments: [dates.rawValue, now, rowid])
            return
        }
        summary.startedAt = start.wholeSeconds
        if let floor {
            let predecessor = try Int64.fetchOne(
                db,
                sql: """
                    SELECT MAX(ended_at) FROM sessions WHERE rowid < ? AND origin = 'gateway' AND json_valid(summary)
                    AND json_extract(summary, '$.detail.address') = ?
                    """,
                arguments: [rowid, summary.detail.machine.address])
            let notBefore = max(floor, UTCTime(millisecondsSince1970: predecessor ?? .min))
            if summary.startedAt < notBefore {
                summary.startedAt = notBefore.wholeSeconds == notBefore ? notBefore : notBefore.wholeSeconds.adding(seconds: 1)
            }
        }
        summary.endedAt = summary.startedAt.adding(seconds: summary.detail.elapsed)
        summary.detail.clockUnsynchronised = dates != .true
        try db.execute(
            sql: "UPDATE sessions SET started_at = ?, ended_at = ?, summary = ?, dates = ?, updated_at = ? WHERE rowid = ?",
            arguments: [
                summary.startedAt.millisecondsSince1970, summary.endedAt.millisecondsSince1970, summary.jsonString, dates.rawValue, now, rowid,
            ])
    }
}
