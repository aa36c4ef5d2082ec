import JSON
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
        if let answer = try daemon.ask(.status, command: "status", config: gateway.state.config) {
            printDaemonStatus(answer)
            return
        }
        try await reportingFailure("status") {
            let store = try gateway.state.openStoreForReading()
            let account = try await store.accountState()
            let counts = try await store.counts()
            let upload = try await store.lastUpload()
            let stats = try await store.storedStats()
            // Checkpointed open sessions are not uploaded either: the package's purge keeps the
            // state directory while any session is pending, dead or open (docs/systemd.md).
            let open = try await store.loadAll()
            let free = FileSystemSpace.available(at: store.directory)
            let damaged = DamagedFiles.list(in: store.directory)
            if json {
                var object = Self.json(store: store, account: account, counts: counts, upload: upload, stats: stats, open: open.count)
                object["free_bytes"] = free.map { .integer($0) }
                object["damaged_files"] = .array(damaged.map { .string($0.path) })
                printLine(jsonLine(object))
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
            var rows: [(String, String)] = [
                ("device id", store.deviceID),
                ("login", login),
                ("sessions", "\(counts.pending) pending, \(counts.uploaded) uploaded, \(counts.dead) dead, \(open.count) open"),
            ]
            for snapshot in open {
                rows.append(("  open", Self.openLine(snapshot)))
            }
            rows += [
                ("last upload", lastUpload),
                ("stats", statsLine),
                ("database", store.path + (free.map { " (\(ByteText.of($0)) free)" } ?? "")),
            ]
            for file in damaged {
                rows.append(("damaged", Self.damagedLine(file.path, movedAt: file.movedAt?.iso8601)))
            }
            print(renderTable(rows.map { [$0.0 + ":", $0.1] }))
        }
    }

    /// The running daemon's status: JSON as it answered, or a table.
    private func printDaemonStatus(_ text: String) {
        if json {
            printLine(text)
            return
        }
        let status = (try? JSONReader.read(text)) ?? .object(JSONObject())
        let queue = status["queue"], account = status["account"], bus = status["bus"]
        let machines = status["machines"]?.array ?? []
        let login = account?["logged_in"]?.bool ?? false ? "logged in" : "login required: \(account?["login_required_reason"]?.string ?? "not logged in")"
        var age = ""
        if let seconds = queue?["oldest_pending_age_s"]?.integer { age = ", oldest pending \(seconds) s" }
        if let unreadable = queue?["unreadable"]?.string { age += " (as last read: the store cannot be read now: \(unreadable))" }
        func count(_ value: JSONValue?) -> Int64 { value?.integer ?? 0 }
        var rows: [(String, String)] = [
            ("daemon", "ftms-bridge \(status["version"]?.string ?? "?"), up \(count(status["uptime_s"])) s"),
            ("device id", status["device_id"]?.string ?? "?"),
            ("login", login),
            ("backend", status["backend"]?.string ?? "none configured"),
            ("system bus", bus?["connected"]?.bool ?? false ? "connected" : "not connected: \(bus?["error"]?.string ?? "connecting")"),
            ("sessions", "\(count(queue?["pending"])) pending, \(count(queue?["uploaded"])) uploaded, \(count(queue?["dead"])) dead\(age)"),
        ]
        if let clock = status["clock"], clock.isObject {
            rows.append(("wall clock", Self.clockLine(clock)))
        }
        if let last = status["last_upload"], last.isObject {
            rows.append(("last upload", "\(last["at"]?.string ?? "?") \(last["succeeded"]?.bool ?? false ? "ok" : "incomplete"): \(last["result"]?.string ?? "")"))
        }
        if let store = status["store"], store.isObject {
            rows.append(("store", Self.storeLine(store)))
            if let moved = store["moved_aside"], moved.isObject {
                rows.append(("damaged", Self.damagedLine(moved["path"]?.string ?? "?", movedAt: moved["at"]?.string)))
            } else {
                for path in store["damaged_files"]?.array ?? [] {
                    rows.append(("damaged", Self.damagedLine(path.string ?? "?", movedAt: nil)))
                }
            }
        }
        rows.append(("metrics readers", "\(count(status["metrics_readers"]))"))
        if let mqtt = status["mqtt"], mqtt.isObject {
            rows.append(("mqtt", Self.brokerLine(mqtt)))
        }
        if let floor = status["floor"], floor.isObject {
            rows.append(contentsOf: Self.floorRows(floor))
        }
        rows.append(("machines", machines.isEmpty ? "none yet" : "\(machines.count)"))
        for machine in machines {
            let state = machine["state"]?.string
            var line = state ?? "?"
            if let notify = machine["notify"]?.string, state == "ready" { line += " (\(notify))" }
            if let session = machine["session_id"]?.string { line += ", riding (session \(session))" }
            if let training = machine["training"]?.string { line += ", training \(training)" }
            if let adapter = machine["adapter"]?.string { line += " via \(adapter)" }
            if let reason = machine["adapter_reason"]?.string, machine["adapter"] == nil { line += " — \(reason)" }
            if let error = machine["last_error"]?.string, state != "ready" { line += " — \(error)" }
            rows.append(("  \(machine["name"]?.string ?? "?")", line))
        }
        print(renderTable(rows.map { [$0.0 + ":", $0.1] }))
    }

    /// `synchronised (2026-11-21T08:00:00Z)`, or why sessions are not dated by it and what waits
    /// (contract §5): what is said here is what the clock service does.
    static func clockLine(_ clock: JSONValue) -> String {
        var line = "\(clock["state"]?.string ?? "?") (\(clock["now"]?.string ?? "?"))"
        let waiting = clock["sessions_waiting"]?.integer ?? 0
        let estimated = clock["sessions_estimated"]?.integer ?? 0
        let left = clock["wait_left_s"]?.integer ?? 0
        let wait = clock["wait_s"]?.integer ?? 0
        let datedBy = clock["dated_by"]?.string
        if datedBy == nil {
            line += "; finished sessions wait for a true date (NTP, a step, or the backend's Date) until \(wait) s after boot (clock_sync_wait)"
            if left > 0 {
                line += ", \(left) s more"
            } else if let now = clock["now"]?.string, let floor = clock["floor"]?.string, now < floor {
                line += ", over, but this clock reads before \(floor): they wait on for a true date"
            } else {
                line += ", over: they go up with this clock's dates, marked unsynchronised"
            }
        } else if waiting > 0 {
            line += "; the waiting sessions are dated at the clock service's next look"
        }
        if waiting > 0 { line += "; \(waiting) waiting" }
        if estimated > 0 { line += "; \(estimated) pending with estimated dates" }
        return line
    }

    /// The floor (`[fleet]`): this gateway and the live ones, then who holds each machine,
    /// whose session is carried on here, which ride split and which sessions were handed over.
    static func floorRows(_ floor: JSONValue) -> [(String, String)] {
        let live = floor["live_gateways"]?.array?.compactMap(\.string) ?? []
        let counters = floor["counters"]
        var rows: [(String, String)] = [(
            "floor",
            "gateway \(floor["gateway"]?.string ?? "?")\(floor["broker_heard"]?.bool == true ? "" : " (broker not heard yet)"); "
                + "live: \(live.isEmpty ? "none other" : live.joined(separator: ", ")); \(counters?["adoptions"]?.integer ?? 0) adopted, "
                + "\(counters?["handovers"]?.integer ?? 0) handed over, \(counters?["split_sessions"]?.integer ?? 0) split")]
        if let clashes = counters?["name_clashes"]?.integer, clashes > 0 {
            rows.append(("  NAME CLASH", "another gateway published \(clashes) presence(s) as \(floor["gateway"]?.string ?? "?"): give each gateway its own [fleet] gateway"))
        }
        for machine in floor["machines"]?.array ?? [] {
            var line = "held by \(machine["holder"]?.string ?? "nobody") (epoch \(machine["epoch"]?.integer ?? 0), \(machine["reason"]?.string ?? "?"))"
            if let from = machine["adopted_from"]?.string { line += ", adopted from \(from)" }
            if let split = machine["split_from"]?.string { line += ", split from session \(split)" }
            rows.append(("  \(machine["name"]?.string ?? machine["machine"]?.string ?? "?")", line))
        }
        for handed in counters?["handed_over"]?.array ?? [] {
            rows.append(("  handed over", "session \(handed["session_id"]?.string ?? "?") on \(handed["machine"]?.string ?? "?") to \(handed["to"]?.string ?? "?"): never uploaded from here"))
        }
        return rows
    }

    /// `connected to mqtt://broker:1883, 1520 delivered, 0 queued, 0 dropped`, or why not.
    static func brokerLine(_ mqtt: JSONValue) -> String {
        let state = mqtt["state"]?.string ?? "?"
        let url = mqtt["url"]?.string ?? "?"
        var line = state == "connected" ? "connected to \(url)" : "\(state == "waiting" ? "not connected" : state) to \(url)"
        line += ", \(mqtt["delivered"]?.integer ?? 0) delivered, \(mqtt["queued"]?.integer ?? 0) queued, \(mqtt["dropped"]?.integer ?? 0) dropped"
        if let error = mqtt["last_error"]?.string { line += state == "connected" ? " (last error: \(error))" : ": \(error)" }
        return line
    }

    /// `writable, 1.2 GiB free`, or `CANNOT WRITE since …: the file system is full (…); 1 finished
    /// session held in memory; 0 B free`.
    static func storeLine(_ store: JSONValue) -> String {
        let free = store["free_bytes"]?.integer.map { ByteText.of($0) + " free" }
        var parts: [String] = []
        if store["in_memory"]?.bool == true {
            parts.append(
                "IN MEMORY ONLY: the file cannot be written (\(store["error"]?.string ?? store["cause"]?.string ?? "refused")); sessions are kept and uploaded from memory, and written to the file as soon as it takes writes; a stop now loses what is not uploaded")
        } else if store["writable"]?.bool ?? true {
            parts.append("writable")
        } else {
            let since = store["failing_since"]?.string.map { " since \($0)" } ?? ""
            parts.append("CANNOT WRITE\(since): \(store["error"]?.string ?? store["cause"]?.string ?? "refused")")
        }
        if let held = store["held_sessions"]?.integer, held > 0 {
            parts.append("\(held) finished session\(held == 1 ? "" : "s") held in memory, written when it can")
        }
        if let free { parts.append(free + (store["low_space"]?.bool == true ? " (LOW)" : "")) }
        if store["reserve"]?.string == "released" { parts.append("reserve given back for finished sessions") }
        return parts.joined(separator: "; ")
    }

    /// A damaged database moved aside, and what to do with it.
    static func damagedLine(_ path: String, movedAt: String?) -> String {
        "\(path)\(movedAt.map { " (moved aside \($0))" } ?? ""): run `ftms-bridge salvage` to queue its sessions"
    }

    /// A checkpointed open session, as the standalone status and `queue` show it.
    static func openLine(_ snapshot: SessionSnapshot) -> String {
        "session \(snapshot.sessionID) on \(snapshot.machine.name), started \(snapshot.startedAt.iso8601), checkpointed \(snapshot.savedAt.iso8601): the daemon resumes or closes it when it starts"
    }

    static func json(store: GatewayStore, account: AccountState, counts: QueueCounts, upload: UploadLogEntry?, stats: StoredStats?, open: Int) -> [String: JSONValue] {
        var object: [String: JSONValue] = [
            "device_id": .string(store.deviceID),
            "logged_in": .bool(account.loggedIn),
            "login_required": .bool(!account.loggedIn && account.loginRequiredReason != nil),
            "pending": .integer(Int64(counts.pending)), "uploaded": .integer(Int64(counts.uploaded)), "dead": .integer(Int64(counts.dead)),
            "open": .integer(Int64(open)), "database": .string(store.path),
        ]
        object["login_required_reason"] = account.loginRequiredReason.map(JSONValue.string)
        object["access_expires_at"] = account.accessExpiresAt.map { .string($0.iso8601) }
        if let upload {
            object["last_upload"] = ["finished_at": .string(upload.finishedAt.iso8601), "result": .string(upload.result), "succeeded": .bool(upload.succeeded)]
        }
        if let stats {
            object["stats"] = (try? JSONReader.read(stats.stats.jsonString)) ?? .object(JSONObject())
            object["stats_source"] = .string(stats.source.rawValue)
        }
        return object
    }
}
