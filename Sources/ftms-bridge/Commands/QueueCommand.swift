import ArgumentParser
import Foundation
import Store
import Workout

/// `ftms-bridge queue [--retry-dead]`: the stored sessions and their upload states.
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

    func validate() throws {
        if let status, UploadStatus(rawValue: status) == nil { throw ValidationError("--status must be pending, uploaded or dead") }
    }

    func run() async throws {
        try await reportingFailure("queue") {
            let store = try gateway.openStore()
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
            guard !sessions.isEmpty else {
                printLine("no sessions")
                return
            }
            let table = renderTable([["SESSION", "STARTED", "DURATION", "STATUS", "RETRIES", "LAST ERROR"]] + sessions.map { session in
                [
                    session.sessionID, session.startedAt.iso8601, ReplayTable.clock(session.duration),
                    session.status.rawValue + (session.downloaded ? " (downloaded)" : ""), String(session.retryCount),
                    session.lastError ?? "",
                ]
            })
            // Rows without an error would end in the padding of the column before it.
            print(table.replacingOccurrences(of: " +(\n|$)", with: "$1", options: .regularExpression))
        }
    }

    static func json(_ session: StoredSession) -> String {
        var object: [String: Any] = [
            "session_id": session.sessionID, "started_at": session.startedAt.iso8601, "duration": session.duration,
            "total_energy": session.totalEnergy, "total_distance": session.totalDistance,
            "upload_status": session.status.rawValue, "retry_count": session.retryCount,
            "rejection_count": session.rejectionCount, "downloaded": session.downloaded,
        ]
        object["last_error"] = session.lastError
        return jsonLine(object)
    }
}
