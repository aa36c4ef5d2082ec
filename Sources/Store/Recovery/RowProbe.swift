import GRDB

/// Reads a rowid table of a damaged database row by row, skipping what cannot be read.
///
/// Each row is found by its own B-tree search (`rowid >= ? LIMIT 1`), so a damaged page costs
/// the rows below it and no others: a search that runs into it fails with SQLITE_CORRUPT, and
/// the probe then looks further on (doubling its step, then halving back to the first row id
/// whose search succeeds) instead of giving up at the first error, as a table scan would.
/// That is what `sqlite3 .recover` does not do when it stops at a page it cannot parse.
struct RowProbe {
    /// Rows read and row ids skipped (a damaged page's, as far as a search can tell).
    struct Tally: Sendable, Hashable {
        var read = 0
        var skipped: Int64 = 0
    }

    let table: String
    let columns: String

    /// Calls `body` with each readable row, in rowid order.
    func read(_ db: Database, _ body: (Row) -> Void) -> Tally {
        var tally = Tally()
        guard let statement = try? db.makeStatement(
            sql: "SELECT rowid AS probe_rowid, \(columns) FROM \(table) WHERE rowid >= ? ORDER BY rowid LIMIT 1")
        else { return tally }
        // The highest row id, or (its own search being damaged) a bound no table here reaches.
        let last = (try? Int64.fetchOne(db, sql: "SELECT max(rowid) FROM \(table)")) ?? nil
        let upper = last ?? Int64(1) << 40
        var next: Int64 = 0
        while next <= upper {
            switch probe(statement, from: next) {
            case .row(let rowid, let row):
                body(row)
                tally.read += 1
                guard rowid < Int64.max else { return tally }
                next = rowid + 1
            case .end:
                return tally
            case .damaged:
                guard let (rowid, row) = firstReadable(after: next, upper: upper, statement) else {
                    // Nothing readable after it: the table's last rows, as many as the highest
                    // row id says when its own search works, else at least one.
                    tally.skipped += last.map { max(1, $0 - next + 1) } ?? 1
                    return tally
                }
                tally.skipped += max(1, rowid - next)
                body(row)
                tally.read += 1
                guard rowid < Int64.max else { return tally }
                next = rowid + 1
            }
        }
        return tally
    }

    private enum Probe {
        case row(Int64, Row)
        case end
        case damaged
    }

    private func probe(_ statement: Statement, from rowid: Int64) -> Probe {
        do {
            guard let row = try Row.fetchOne(statement, arguments: [rowid]) else { return .end }
            guard let rowid = Int64.fromDatabaseValue(row["probe_rowid"]) else { return .damaged }
            return .row(rowid, row)
        } catch {
            return .damaged
        }
    }

    /// The first row whose search succeeds past the damaged one at `failed`: steps of 1, 2, 4…
    /// until a search succeeds, then halves back between the last failure and that success.
    private func firstReadable(after failed: Int64, upper: Int64, _ statement: Statement) -> (Int64, Row)? {
        var low = failed
        var step: Int64 = 1
        var found: (from: Int64, rowid: Int64, row: Row)?
        while found == nil {
            let (from, overflow) = low.addingReportingOverflow(step)
            guard !overflow, from <= upper else { break }
            switch probe(statement, from: from) {
            case .row(let rowid, let row): found = (from, rowid, row)
            case .end: return nil
            case .damaged:
                low = from
                step = step.multipliedReportingOverflow(by: 2).overflow ? step : step * 2
            }
        }
        guard var found else { return nil }
        // Searches from `low` fail and from `found.from` succeed: narrow down to the first
        // success, which may find rows the doubling jumped over.
        while found.from - low > 1 {
            let middle = low + (found.from - low) / 2
            switch probe(statement, from: middle) {
            case .row(let rowid, let row): found = (middle, rowid, row)
            case .end, .damaged: low = middle
            }
        }
        return (found.rowid, found.row)
    }
}
