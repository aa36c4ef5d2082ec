import GRDB

/// Copies the rows of every table two databases of the store's schema share, from one
/// connection to another, keeping the destination's rows where both have one (INSERT OR
/// IGNORE). What carries a damaged file's queue and checkpoints into a fresh store while the
/// daemon runs, and memory's sessions into a file that was not memory's seed.
///
/// A table whose pages cannot all be read gives what it can: its rows in rowid order up to the
/// damage, then in reverse order down to it. (Reading what the B-tree no longer reaches is
/// salvage's job, on the file moved aside.)
enum TableCopy {
    struct Outcome: Sendable {
        var rows = 0
        /// Tables whose reading stopped at damage.
        var damagedTables: [String] = []
    }

    @discardableResult
    static func copy(from source: Database, to destination: Database) throws -> Outcome {
        var outcome = Outcome()
        let tables = Set(tableNames(source)).intersection(tableNames(destination)).sorted()
        try destination.execute(sql: "PRAGMA foreign_keys = OFF")
        defer { try? destination.execute(sql: "PRAGMA foreign_keys = ON") }
        try destination.inTransaction {
            for table in tables {
                let wanted = Set(columns(table, source))
                let shared = columns(table, destination).filter { wanted.contains($0) }
                guard !shared.isEmpty else { continue }
                let list = shared.map { "\"\($0)\"" }.joined(separator: ", ")
                let insert = try destination.makeStatement(
                    sql: "INSERT OR IGNORE INTO \"\(table)\" (\(list)) VALUES (\(Array(repeating: "?", count: shared.count).joined(separator: ", ")))")
                var damaged = false
                for order in ["", " ORDER BY rowid DESC"] {
                    if order.isEmpty == false, !damaged { break }
                    do {
                        let rows = try Row.fetchCursor(source, sql: "SELECT \(list) FROM \"\(table)\"\(order)")
                        while let row = try rows.next() {
                            try insert.execute(arguments: StatementArguments(shared.map { row[$0] as DatabaseValue }))
                            outcome.rows += destination.changesCount
                        }
                    } catch let error as DatabaseError where error.resultCode != .SQLITE_FULL && error.resultCode != .SQLITE_READONLY {
                        // Damage in the source (or a WITHOUT ROWID table asked in rowid order).
                        if order.isEmpty { damaged = true }
                    }
                }
                if damaged { outcome.damagedTables.append(table) }
            }
            return .commit
        }
        return outcome
    }

    private static func tableNames(_ db: Database) -> [String] {
        (try? String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")) ?? []
    }

    private static func columns(_ table: String, _ db: Database) -> [String] {
        (try? Row.fetchAll(db, sql: "PRAGMA table_info(\"\(table)\")").compactMap { $0["name"] as String? }) ?? []
    }
}
