import Foundation
import GRDB
import JSON
import ProcessOutput
import Workout

#if canImport(Glibc)
import Glibc
#endif

/// Reads what can be read out of a damaged state database: the device id and the login (so a
/// fresh store keeps the gateway's identity at the backend), every readable session, and the
/// open sessions' checkpoints.
///
/// It works on a scratch copy (the file, and its WAL when there is one) in a directory of its
/// own beside the file, removed afterwards: SQLite may then replay the WAL and, for a file whose
/// header is damaged, read the pages behind a rebuilt one (``HeaderRepair``), and the damaged
/// file itself is never written. Rows are read one by one (``RowProbe``), skipping damaged
/// pages; a summary that does not parse as a session is skipped too.
struct DamagedStoreReader {
    let path: String

    /// What was read.
    struct Contents: Sendable {
        var deviceID: String?
        /// The `account` row, as stored (tokens included: they stay in 0600 files).
        var account: AccountRow?
        var sessions: [SalvagedSession] = []
        var checkpoints: [SessionSnapshot] = []
        /// Row ids of `sessions` and `checkpoints` whose pages could not be read.
        var skippedRows: Int64 = 0
        /// Rows that were read but did not hold a session or a checkpoint.
        var malformedRows = 0
        var headerRebuilt = false
    }

    /// Reads the file (`sessions: false`: the device id and the login only); throws ``StoreError/damaged(path:reason:)`` when nothing of it is a
    /// database SQLite can open (a zeroed file, a damaged first page), after trying the
    /// device id's own bytes.
    func read(sessions readSessions: Bool = true) throws -> Contents {
        let scratch = try ScratchCopy(of: path)
        defer { scratch.remove() }
        var contents = Contents()
        contents.headerRebuilt = scratch.headerRebuilt
        let database: DatabaseQueue
        do {
            var configuration = Configuration()
            configuration.label = "ftms-bridge.salvage"
            // A file cut short says in its header that it has more pages than it has, which
            // SQLite refuses as corrupt unless the schema is "writable": then it reads the pages
            // there are. Nothing here writes to the schema (nor to the damaged file at all).
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA writable_schema = ON") }
            database = try DatabaseQueue(path: scratch.path, configuration: configuration)
        } catch {
            throw StoreError.damaged(path: path, reason: "SQLite cannot open it at all (\(Self.text(error)))")
        }
        defer { try? database.close() }
        do {
            try database.writeWithoutTransaction { db in
                // The schema (page 1) is what every row is found through.
                _ = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master")
                contents.deviceID = try? DeviceRow.deviceID(db)
                contents.account = try? AccountRow.fetchOne(db)
                guard readSessions else { return }
                let sessions = RowProbe(table: "sessions", columns: "upload_status, origin, summary").read(db) { row in
                    guard let session = SalvagedSession(row: row) else { return contents.malformedRows += 1 }
                    contents.sessions.append(session)
                }
                let checkpoints = RowProbe(table: "checkpoints", columns: "snapshot").read(db) { row in
                    guard let checkpoint = try? CheckpointRow.Snapshot(row: row) else { return contents.malformedRows += 1 }
                    contents.checkpoints.append(checkpoint.snapshot)
                }
                contents.skippedRows = sessions.skipped + checkpoints.skipped
            }
        } catch {
            throw StoreError.damaged(path: path, reason: "its schema cannot be read (\(Self.text(error)))")
        }
        return contents
    }

    /// The device id alone, from the file's bytes, for when SQLite can read nothing of it: the
    /// `device` table's one row is a record of exactly (NULL, 36-character text, integer), a
    /// shape no other row of the schema has, so its bytes are found wherever its page landed.
    static func deviceIDFromBytes(of path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        var carry: [UInt8] = []
        while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            let bytes = carry + chunk
            if let id = deviceID(in: bytes) { return id }
            carry = Array(bytes.suffix(48))
        }
        return nil
    }

    /// The record header `04 00 55 0t` (header length 4, NULL, text of 36 bytes, an integer
    /// of type 1–6) followed by a lower-case UUID.
    static func deviceID(in bytes: [UInt8]) -> String? {
        guard bytes.count >= 40 else { return nil }
        for start in 0...(bytes.count - 40)
        where bytes[start] == 0x04 && bytes[start + 1] == 0x00 && bytes[start + 2] == 0x55 && (1...6).contains(bytes[start + 3]) {
            let text = bytes[(start + 4)..<(start + 40)]
            let isUUID = text.enumerated().allSatisfy { offset, byte in
                [8, 13, 18, 23].contains(offset) ? byte == UInt8(ascii: "-") : (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte)
            }
            if isUUID { return String(decoding: text, as: UTF8.self) }
        }
        return nil
    }

    private static func text(_ error: any Error) -> String {
        (error as? DatabaseError).map(GatewayStore.oneLine) ?? "\(error)"
    }
}

/// One session read out of a damaged store.
public struct SalvagedSession: Sendable, Hashable {
    public var record: SessionRecord
    /// The damaged store had it as uploaded: it goes into the queue as uploaded, so the stats
    /// keep it and it is not sent again. Pending and dead-letter sessions go in as pending.
    public var uploaded: Bool
    public var origin: SessionOrigin

    init?(row: Row) {
        // A damaged page may hold any value anywhere: read each as it is, never by a
        // conversion that traps.
        guard let summary = String.fromDatabaseValue(row["summary"]), let json = try? JSONReader.read(summary),
              let record = SessionRecord(uploaded: json)
        else { return nil }
        self.record = record
        uploaded = String.fromDatabaseValue(row["upload_status"]) == UploadStatus.uploaded.rawValue
        origin = String.fromDatabaseValue(row["origin"]).flatMap(SessionOrigin.init) ?? .gateway
    }

    public init(record: SessionRecord, uploaded: Bool, origin: SessionOrigin) {
        self.record = record
        self.uploaded = uploaded
        self.origin = origin
    }
}
