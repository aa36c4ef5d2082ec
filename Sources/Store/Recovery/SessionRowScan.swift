import Foundation
import JSON
import Workout

/// The `sessions` rows found anywhere in a damaged database file and its WAL by reading the
/// pages themselves (``PageScanner``), whatever of the B-tree above them survives: the schema
/// page, interior pages and the file's end may all be gone.
///
/// A row is a session row by its shape, since the schema may be unreadable: 14 or more values
/// (14 before the dates columns were added, 17 after, 18 since `split_from`), a text id, a summary that parses as a
/// session whose id is that id, and an origin and a status this store writes. Nothing else in
/// the schema has that shape.
///
/// A file holds stale copies of rows too (pages freed but not overwritten, older WAL frames):
/// a session found more than once is kept once, as uploaded when any copy says so, so that a
/// stale pending copy never sends again what the backend acknowledged.
enum SessionRowScan {
    /// What the scan found.
    struct Found: Sendable {
        var sessions: [SalvagedSession] = []
        /// Leaf rows shaped as session rows whose summary did not parse.
        var malformedRows = 0
    }

    /// Reads `path` (and `path-wal` when there is one).
    static func scan(_ path: String) -> Found {
        var rows: [PageScanner.Row] = []
        if let file = FileManager.default.contents(atPath: path) {
            rows += scanFile(Array(file))
        }
        if let wal = FileManager.default.contents(atPath: path + "-wal") {
            rows += scanWAL(Array(wal))
        }
        return sessions(in: rows)
    }

    /// The file's pages, at its header's page size when the header is sound, else at every
    /// page size SQLite allows (a row found twice is kept once).
    static func scanFile(_ bytes: [UInt8]) -> [PageScanner.Row] {
        let header = Array(bytes.prefix(100))
        if HeaderRepair.isSound(header) {
            let encoded = Int(header[16]) << 8 | Int(header[17])
            return PageScanner(bytes: bytes, pageSize: encoded == 1 ? 65_536 : encoded, reservedBytes: Int(header[20])).rows()
        }
        return [512, 1024, 2048, 4096, 8192, 16_384, 32_768, 65_536].flatMap { PageScanner(bytes: bytes, pageSize: $0).rows() }
    }

    /// The page images of a WAL's frames (its 32-byte header gives the page size; each frame is
    /// a 24-byte header, whose first 4 bytes are the page number, and the page).
    static func scanWAL(_ bytes: [UInt8]) -> [PageScanner.Row] {
        guard bytes.count >= 32 else { return [] }
        let pageSize = Int(PageScanner.uint32(bytes, at: 8))
        guard pageSize >= 512, pageSize <= 65_536, pageSize & (pageSize - 1) == 0 else { return [] }
        let scanner = PageScanner(bytes: bytes, pageSize: pageSize)
        var rows: [PageScanner.Row] = []
        var frame = 32
        while frame + 24 + pageSize <= bytes.count {
            let page = Int(PageScanner.uint32(bytes, at: frame))
            rows += scanner.leafRows(page: page, at: frame + 24)
            frame += 24 + pageSize
        }
        return rows
    }

    /// The rows shaped as session rows, as sessions; one per id.
    static func sessions(in rows: [PageScanner.Row]) -> Found {
        var found = Found()
        var byID: [String: SalvagedSession] = [:]
        var order: [String] = []
        for row in rows {
            let values = row.values
            guard values.count >= 14, values.count <= 64, let id = values[0].string, !id.isEmpty,
                  let origin = values[7].string.flatMap(SessionOrigin.init(rawValue:)),
                  let status = values[8].string.flatMap(UploadStatus.init(rawValue:))
            else { continue }
            guard let summary = values[6].string, let json = try? JSONReader.read(summary), var record = SessionRecord(uploaded: json),
                  record.sessionID == id.lowercased()
            else {
                found.malformedRows += 1
                continue
            }
            record.timing = timing(values)
            let session = SalvagedSession(record: record, uploaded: status == .uploaded, origin: origin)
            if let held = byID[record.sessionID] {
                if session.uploaded && !held.uploaded { byID[record.sessionID] = session }
            } else {
                byID[record.sessionID] = session
                order.append(record.sessionID)
            }
        }
        found.sessions = order.compactMap { byID[$0] }
        return found
    }

    /// A session still waiting for a true clock keeps where it lay on its boot's clock
    /// (`dates`, `boot_id`, `boot_start`), so that it is dated, not sent with the clock's guess.
    private static func timing(_ values: [PageScanner.Value]) -> SessionTiming? {
        guard values.count >= 17, values[14].string == SessionDates.waiting.rawValue, let start = values[16].int64 else { return nil }
        return SessionTiming(boot: values[15].string.map(BootID.init), start: .milliseconds(start), datesAreTrue: false)
    }
}
