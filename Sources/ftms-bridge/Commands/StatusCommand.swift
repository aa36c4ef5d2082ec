import ArgumentParser
import Foundation
import Store
import Workout

/// `ftms-bridge status`: login state, device id, queue counts, the last upload and the stats.
/// Reads the store only; it never calls the backend.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the login state, device id, upload queue, last upload result and stats."
    )

    @OptionGroup var gateway: GatewayOptions

    @Flag(help: "Print one JSON object instead.")
    var json = false

    func run() async throws {
        try await reportingFailure("status") {
            let store = try gateway.openStore()
            let account = try await store.accountState()
            let counts = try await store.counts()
            let upload = try await store.lastUpload()
            let stats = try await store.storedStats()
            if json {
                printLine(Self.json(store: store, account: account, counts: counts, upload: upload, stats: stats))
                return
            }
            let login: String
            if account.loggedIn {
                login = "logged in" + (account.accessExpiresAt.map { " (access token until \($0.iso8601))" } ?? "")
            } else if let reason = account.loginRequiredReason {
                login = "login required: \(reason)"
            } else {
                login = "not logged in"
            }
            let lastUpload: String = upload.map { entry in
                "\(entry.finishedAt.iso8601) \(entry.succeeded ? "ok" : "incomplete"): \(entry.result)"
            } ?? "never"
            let statsLine: String = stats.map { stored in
                StatsText.line(stored.stats) + (stored.source == .server ? " (from the backend)" : " (the gateway's)")
            } ?? "none yet"
            let rows: [(String, String)] = [
                ("device id", store.deviceID),
                ("login", login),
                ("sessions", "\(counts.pending) pending, \(counts.uploaded) uploaded, \(counts.dead) dead"),
                ("last upload", lastUpload),
                ("stats", statsLine),
                ("database", store.path),
            ]
            print(renderTable(rows.map { [$0.0 + ":", $0.1] }))
        }
    }

    static func json(store: GatewayStore, account: AccountState, counts: QueueCounts, upload: UploadLogEntry?, stats: StoredStats?) -> String {
        var object: [String: Any] = [
            "device_id": store.deviceID,
            "logged_in": account.loggedIn,
            "login_required": !account.loggedIn && account.loginRequiredReason != nil,
            "pending": counts.pending, "uploaded": counts.uploaded, "dead": counts.dead,
            "database": store.path,
        ]
        object["login_required_reason"] = account.loginRequiredReason
        object["access_expires_at"] = account.accessExpiresAt?.iso8601
        if let upload {
            object["last_upload"] = ["finished_at": upload.finishedAt.iso8601, "result": upload.result, "succeeded": upload.succeeded]
        }
        if let stats {
            object["stats"] = (try? JSONSerialization.jsonObject(with: Data(stats.stats.jsonString.utf8))) ?? [:]
            object["stats_source"] = stats.source.rawValue
        }
        return jsonLine(object)
    }
}
