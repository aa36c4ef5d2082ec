import Clocks
import JSON
import ArgumentParser
import Foundation
import Store
import Workout

/// `ftms-bridge salvage [--from FILE]`: reads every readable session out of a damaged state
/// database into the live queue (contract §6).
///
/// Standalone rather than through the daemon's control socket: it only needs the live
/// database, which a second process may write beside the daemon (the store waits for the
/// daemon's lock), and an operator can run it whether the daemon runs or not. The daemon's
/// next upload run sends what it queued (`ftms-bridge upload` sends it now).
struct SalvageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "salvage",
        abstract: "Read the sessions out of a damaged state database into the upload queue.",
        discussion: """
            The daemon moves a damaged database aside (ftms-bridge.sqlite.damaged-TIME in the state directory) and \
            starts on a fresh one. This reads every row that can still be read out of it, skipping damaged pages, into \
            the live queue, and reads every page of the file for session rows that no B-tree reaches any more: pending \
            and dead-letter sessions as pending, uploaded ones as uploaded, open sessions closed as finished. Sessions \
            the session journal (ftms-bridge.journal) holds and the queue does not are put back too. A session already in the queue is left as it is, so the backend holds each once, however often \
            this runs. Without --from it reads every damaged database in the state directory and renames each it read \
            to ftms-bridge.sqlite.salvaged-TIME (never deleted), so that status and doctor stop pointing at it.
            """
    )

    @OptionGroup var state: StateOptions

    @Option(name: .customLong("from"), help: "A damaged database to read (default: every ftms-bridge.sqlite.damaged-* in the state directory).")
    var from: [String] = []

    @Flag(help: "Print one JSON object per file read.")
    var json = false

    func run() async throws {
        try await reportingFailure("salvage") {
            let directory = try state.resolvedStateDirectory()
            let named = !from.isEmpty
            let files = named ? from : DamagedFiles.list(in: directory).map(\.path)
            guard !files.isEmpty else {
                printLine("no damaged database in \(directory): nothing to salvage")
                return
            }
            for file in files where !FileManager.default.fileExists(atPath: file) {
                throw ValidationError("--from \(file): no such file")
            }
            let store = try state.openStore(creating: true)
            var failed = false
            for file in files {
                let report: SalvageReport
                do {
                    report = try await store.salvage(from: file)
                } catch {
                    printError("salvage: \(error)")
                    failed = true
                    continue
                }
                for warning in report.journalWarnings { printError("salvage: warning: \(warning)") }
                let renamed = DamagedFiles.isDamagedName(file) ? try DamagedFiles.markSalvaged(file, at: WallClock.system.now()) : nil
                printLine(json ? Self.json(report, renamed: renamed) : Self.text(report, renamed: renamed))
            }
            if failed { throw ExitCode(1) }
        }
    }

    static func text(_ report: SalvageReport, renamed: String?) -> String {
        var line = "\(report.path): \(report.sessionsRead) session(s) read"
        if report.openSessionsClosed > 0 { line += " (\(report.openSessionsClosed) open, closed as finished)" }
        line += "; queued \(report.queuedPending) as pending, \(report.queuedUploaded) as uploaded; \(report.alreadyQueued) already in the queue"
        if report.skippedRows > 0 { line += "; \(report.skippedRows) row id(s) on damaged pages skipped" }
        if report.malformedRows > 0 { line += "; \(report.malformedRows) row(s) held no session" }
        if report.headerRebuilt { line += "; its damaged header was rebuilt in a scratch copy" }
        if report.unreadableBySQLite { line += "; SQLite could read nothing of it" }
        if report.foundByPageScan > 0 { line += "; \(report.foundByPageScan) found only by reading its pages" }
        if report.requeuedFromJournal > 0 { line += "; \(report.requeuedFromJournal) put back from the session journal" }
        if let renamed { line += "; renamed \(renamed)" }
        return line
    }

    static func json(_ report: SalvageReport, renamed: String?) -> String {
        var object: [String: JSONValue] = [
            "file": .string(report.path), "sessions_read": .integer(Int64(report.sessionsRead)),
            "queued_pending": .integer(Int64(report.queuedPending)), "queued_uploaded": .integer(Int64(report.queuedUploaded)),
            "already_queued": .integer(Int64(report.alreadyQueued)), "open_sessions_closed": .integer(Int64(report.openSessionsClosed)),
            "skipped_rows": .integer(report.skippedRows), "malformed_rows": .integer(Int64(report.malformedRows)),
            "header_rebuilt": .bool(report.headerRebuilt), "unreadable_by_sqlite": .bool(report.unreadableBySQLite),
            "found_by_page_scan": .integer(Int64(report.foundByPageScan)),
            "requeued_from_journal": .integer(Int64(report.requeuedFromJournal)),
        ]
        object["renamed"] = renamed.map(JSONValue.string)
        return jsonLine(object)
    }
}
