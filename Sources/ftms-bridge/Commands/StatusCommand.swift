import ArgumentParser
import Control
import Foundation
import Store
import Workout

/// `ftms-bridge status`: login state, device id, queue counts, the last upload and the stats.
/// With a daemon running, its own view through the control socket (machines, bus, uptime
/// too); otherwise the store's. It never calls the backend.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the login state, device id, upload queue, last upload result and stats."
    )

    @OptionGroup var gateway: GatewayOptions

    @Flag(help: "Print one JSON object instead.")
    var json = false

    @OptionGroup var daemon: DaemonSocketOptions

    func run() async throws {
        if let answer = try daemon.ask(.status, command: "status") {
            try printDaemonStatus(answer)
            return
        }
        try await reportingFailure("status") {
            let store = try gateway.openStore()
            let account = try await store.accountState()
            let counts = try await store.counts()
            let upload = try await store.lastUpload()
            let stats = try await store.storedStats()
            if json {
                // Checkpointed open sessions are not uploaded either: the package's purge keeps the
                // state directory while any session is pending, dead or open (docs/systemd.md).
                let open = try await store.loadAll().count
                printLine(Self.json(store: store, account: account, counts: counts, upload: upload, stats: stats, open: open))
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

    /// The running daemon's status: JSON as it answered, or a table.
    private func printDaemonStatus(_ answer: ControlResponse) throws {
        if let failure = answer.failure {
            printError("status: \(failure.message)")
            throw ExitCode(1)
        }
        let text = answer.resultJSON ?? "{}"
        if json {
            printLine(text)
            return
        }
        let status = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
        let queue = status["queue"] as? [String: Any] ?? [:]
        let account = status["account"] as? [String: Any] ?? [:]
        let bus = status["bus"] as? [String: Any] ?? [:]
        let machines = status["machines"] as? [[String: Any]] ?? []
        let login = (account["logged_in"] as? Bool ?? false) ? "logged in" : "login required: \(account["login_required_reason"] as? String ?? "not logged in")"
        var age = ""
        if let seconds = queue["oldest_pending_age_s"] as? Int { age = ", oldest pending \(seconds) s" }
        var rows: [(String, String)] = [
            ("daemon", "ftms-bridge \(status["version"] as? String ?? "?"), up \(status["uptime_s"] as? Int ?? 0) s"),
            ("device id", status["device_id"] as? String ?? "?"),
            ("login", login),
            ("backend", status["backend"] as? String ?? "none configured"),
            ("system bus", (bus["connected"] as? Bool ?? false) ? "connected" : "not connected: \(bus["error"] as? String ?? "connecting")"),
            ("sessions", "\(queue["pending"] as? Int ?? 0) pending, \(queue["uploaded"] as? Int ?? 0) uploaded, \(queue["dead"] as? Int ?? 0) dead\(age)"),
        ]
        if let last = status["last_upload"] as? [String: Any] {
            rows.append(("last upload", "\(last["at"] as? String ?? "?") \((last["succeeded"] as? Bool ?? false) ? "ok" : "incomplete"): \(last["result"] as? String ?? "")"))
        }
        rows.append(("metrics readers", "\(status["metrics_readers"] as? Int ?? 0)"))
        if let mqtt = status["mqtt"] as? [String: Any] {
            rows.append(("mqtt", Self.brokerLine(mqtt)))
        }
        rows.append(("machines", machines.isEmpty ? "none yet" : "\(machines.count)"))
        for machine in machines {
            var line = "\(machine["state"] as? String ?? "?")"
            if let notify = machine["notify"] as? String, machine["state"] as? String == "ready" { line += " (\(notify))" }
            if let session = machine["session_id"] as? String { line += ", riding (session \(session))" }
            if let training = machine["training"] as? String { line += ", training \(training)" }
            if let adapter = machine["adapter"] as? String { line += " via \(adapter)" }
            if let reason = machine["adapter_reason"] as? String, machine["adapter"] == nil { line += " — \(reason)" }
            if let error = machine["last_error"] as? String, machine["state"] as? String != "ready" { line += " — \(error)" }
            rows.append(("  \(machine["name"] as? String ?? "?")", line))
        }
        print(renderTable(rows.map { [$0.0 + ":", $0.1] }))
    }

    /// `connected to mqtt://broker:1883, 1520 delivered, 0 queued, 0 dropped`, or why not.
    static func brokerLine(_ mqtt: [String: Any]) -> String {
        let state = mqtt["state"] as? String ?? "?"
        let url = mqtt["url"] as? String ?? "?"
        var line = state == "connected" ? "connected to \(url)" : "\(state == "waiting" ? "not connected" : state) to \(url)"
        line += ", \(mqtt["delivered"] as? Int ?? 0) delivered, \(mqtt["queued"] as? Int ?? 0) queued, \(mqtt["dropped"] as? Int ?? 0) dropped"
        if let error = mqtt["last_error"] as? String { line += state == "connected" ? " (last error: \(error))" : ": \(error)" }
        return line
    }

    static func json(store: GatewayStore, account: AccountState, counts: QueueCounts, upload: UploadLogEntry?, stats: StoredStats?, open: Int) -> String {
        var object: [String: Any] = [
            "device_id": store.deviceID,
            "logged_in": account.loggedIn,
            "login_required": !account.loggedIn && account.loginRequiredReason != nil,
            "pending": counts.pending, "uploaded": counts.uploaded, "dead": counts.dead, "open": open,
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
