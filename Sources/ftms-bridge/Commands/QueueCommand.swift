import JSON
import ArgumentParser
import Dashboard
import Foundation
import Store
import Workout

/// `ftms-bridge queue [--retry-dead]`: the stored sessions and their upload states, and the
/// open sessions checkpointed (a stopped daemon's, resumed or closed at its next start);
/// `queue --plot ID out.svg` draws one session from its stored series.
struct QueueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        abstract: "List stored sessions and their upload states; move dead-letter sessions back to pending.",
        discussion: """
            Sessions are pending (waiting for upload), uploaded (the backend holds them), or dead (the backend \
            refused them as invalid). After fixing the cause, --retry-dead moves dead sessions back to pending \
            for the next upload.
            """
    )

    @OptionGroup var gateway: GatewayOptions

    @Flag(help: "Move every dead-letter session back to pending, with its retry count reset.")
    var retryDead = false

    @Option(help: "Only sessions in this state: pending, uploaded or dead.")
    var status: String?

    @Flag(help: "One JSON object per session, one per line.")
    var json = false

    @Option(help: "Draw this session's power/cadence (bike) or pace/stroke rate (rower) and heart rate over time, from its stored series, as SVG into the file given after it.")
    var plot: String?

    @Argument(help: "With --plot: the SVG file to write.")
    var output: String?

    func validate() throws {
        if plot != nil, output == nil { throw ValidationError("--plot ID needs the SVG file to write: queue --plot ID out.svg") }
        if plot == nil, output != nil { throw ValidationError("unexpected argument \(output ?? ""); did you mean --plot ID \(output ?? "")?") }
        if plot != nil, retryDead || json || status != nil { throw ValidationError("--plot draws one session: no --retry-dead, --json or --status with it") }
        if let status, UploadStatus(rawValue: status) == nil { throw ValidationError("--status must be pending, uploaded or dead") }
    }

    func run() async throws {
        try await reportingFailure("queue") {
            let store = try gateway.openStore()
            if let plot, let output {
                let svg = try await SessionPlot.stored(plot, in: store).svg
                do {
                    try Data(svg.utf8).write(to: URL(fileURLWithPath: output))
                } catch {
                    printError("queue: --plot \(output): \(error.localizedDescription)")
                    throw ExitCode(1)
                }
                return
            }
            if retryDead {
                let moved = try await store.retryDead()
                printLine("\(moved) dead-letter sessions moved back to pending")
                return
            }
            let sessions = try await store.sessions(status: status.flatMap(UploadStatus.init(rawValue:)))
            if json {
                for session in sessions { printLine(Self.json(session)) }
                return
            }
            // Open sessions are in no upload state yet: listed when no --status narrows the list.
            let open = status == nil ? try await store.loadAll() : []
            guard !sessions.isEmpty || !open.isEmpty else {
                printLine("no sessions")
                return
            }
            let rows = sessions.map { session in
                [
                    session.sessionID, session.startedAt.iso8601, ReplayTable.clock(session.duration),
                    session.status.rawValue + (session.downloaded ? " (downloaded)" : ""), String(session.retryCount),
                    session.lastError ?? "",
                ]
            } + open.map { snapshot in
                let duration = SessionEngine.closing(snapshot)?.summary?.duration
                return [
                    snapshot.sessionID, snapshot.startedAt.iso8601, duration.map(ReplayTable.clock) ?? "",
                    "open (\(snapshot.machine.name), checkpointed \(snapshot.savedAt.iso8601))", "", "",
                ]
            }
            let table = renderTable([["SESSION", "STARTED", "DURATION", "STATUS", "RETRIES", "LAST ERROR"]] + rows)
            // Rows without an error would end in the padding of the column before it.
            print(table.replacingOccurrences(of: " +(\n|$)", with: "$1", options: .regularExpression))
        }
    }

    static func json(_ session: StoredSession) -> String {
        var object: [String: JSONValue] = [
            "session_id": .string(session.sessionID), "started_at": .string(session.startedAt.iso8601),
            "duration": .integer(Int64(session.duration)), "total_energy": .integer(Int64(session.totalEnergy)),
            "total_distance": .integer(Int64(session.totalDistance)), "upload_status": .string(session.status.rawValue),
            "retry_count": .integer(Int64(session.retryCount)), "rejection_count": .integer(Int64(session.rejectionCount)),
            "downloaded": .bool(session.downloaded),
        ]
        object["last_error"] = session.lastError.map(JSONValue.string)
        return jsonLine(object)
    }
}
