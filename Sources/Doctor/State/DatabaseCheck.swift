import Clocks
import JSON
import Foundation
import Store
import Workout

/// Check 5b: the database: opens as the daemon opens it (a damaged, unwritable or newer file
/// gets the store's own line), passes SQLite's integrity check, how the queue stands, the free
/// space of its file system, and any damaged database moved aside and not salvaged yet.
///
/// It never creates a database: a missing file is reported, not made, so running the doctor
/// as root on a fresh box leaves no root-owned file for the daemon to trip over.
struct DatabaseCheck: Sendable {
    static let id = "database"
    static let title = "Database"
    /// A pending session older than this means uploads are not getting through.
    static let stalePending: Int64 = 24 * 3600

    var directory: String
    var clock: WallClock
    /// `state.low_space_warning_mib` in bytes; 0: never warn.
    var lowSpaceBytes: Int64 = 0

    var path: String { (directory as NSString).appendingPathComponent(GatewayStore.fileName) }

    /// The result, and the open store for the login check (closed by the caller).
    func run() async -> (result: CheckResult, store: GatewayStore?) {
        var data: [String: JSONValue] = ["path": .string(path)]
        guard FileManager.default.fileExists(atPath: path) else {
            data["exists"] = false
            return (CheckResult(
                id: Self.id, title: Self.title, status: .warning, detail: "no database yet at \(path)",
                hint: "the daemon creates it at first start; `ftms-bridge login` does too", data: data), nil)
        }
        data["exists"] = true
        let free = FileSystemSpace.available(at: directory)
        data["free_bytes"] = .optional(free.map { Int($0) })
        let damaged = DamagedFiles.list(in: directory)
        data["damaged_files"] = .array(damaged.map { .string($0.path) })
        let store: GatewayStore
        do {
            store = try GatewayStore(directory: directory, clock: clock)
        } catch {
            data["error"] = .string("\(error)")
            let hint: String
            switch error as? StoreError {
            case .damaged:
                hint = "the daemon moves it aside (renamed with the time) and starts on a fresh store at its next start; then `ftms-bridge salvage` queues its readable sessions"
            case .inaccessible:
                hint = "the file is not damaged: fix what this names; do not move the file aside (that would lose the queue). A running daemon keeps its store IN MEMORY meanwhile (`ftms-bridge status` says so) and writes it here as soon as it can; a stop before then loses what is not uploaded"
            default:
                hint = "the daemon will refuse to start until this is fixed"
            }
            return (failed("\(error)", hint: hint, data), nil)
        }
        do {
            let integrity = try await store.integrityCheck()
            let migrations = try await store.appliedMigrations()
            let counts = try await store.counts()
            let oldest = try await store.pendingBatch(after: nil, limit: 1).first?.startedAt
            data["integrity"] = .array(integrity.map(JSONValue.string))
            data["migrations"] = .array(migrations.map(JSONValue.string))
            data["device_id"] = .string(store.deviceID)
            data["pending"] = .integer(Int64(counts.pending))
            data["uploaded"] = .integer(Int64(counts.uploaded))
            data["dead"] = .integer(Int64(counts.dead))
            guard integrity == ["ok"] else {
                return (failed(
                    "\(path) fails SQLite's integrity check: \(integrity.prefix(3).joined(separator: "; "))",
                    hint: "damaged: stop the daemon, rename the file (and its -wal) to \(GatewayStore.fileName).damaged-<time>, start the daemon (a fresh store), then run `ftms-bridge salvage`",
                    data), store)
            }
            let age = oldest.map { max(0, (clock.now().millisecondsSince1970 - $0.millisecondsSince1970) / 1000) }
            data["oldest_pending_started_at"] = .optional(oldest?.iso8601)
            data["oldest_pending_age_s"] = .optional(age.map(Int.init))
            let queue = "\(counts.pending) pending" + (age.map { " (oldest \(Self.ageText($0)) old)" } ?? "")
                + ", \(counts.uploaded) uploaded, \(counts.dead) dead"
            let detail = "\(path): integrity ok, \(migrations.count) migration\(migrations.count == 1 ? "" : "s") applied; \(queue)"
            if let file = damaged.first {
                return (CheckResult(
                    id: Self.id, title: Self.title, status: .warning,
                    detail: "\(detail); a damaged database was moved aside\(file.movedAt.map { " at \($0.iso8601)" } ?? ""): \(file.path)",
                    hint: "run `ftms-bridge salvage` to queue its readable sessions (it renames the file .salvaged- afterwards)", data: data), store)
            }
            if lowSpaceBytes > 0, let free, free < lowSpaceBytes {
                return (CheckResult(
                    id: Self.id, title: Self.title, status: .warning, detail: "\(detail); \(ByteText.of(free)) free on its file system",
                    hint: "under state.low_space_warning_mib: make room (journald, old logs) before the store cannot write", data: data), store)
            }
            if counts.dead > 0 {
                return (CheckResult(
                    id: Self.id, title: Self.title, status: .warning, detail: detail,
                    hint: "the backend refused \(counts.dead) session(s) for good: see `ftms-bridge queue`, retry with `ftms-bridge queue --retry-dead`",
                    data: data), store)
            }
            if let age, age > Self.stalePending {
                return (CheckResult(
                    id: Self.id, title: Self.title, status: .warning, detail: detail,
                    hint: "uploads are not getting through: see the backend and login checks", data: data), store)
            }
            return (CheckResult(id: Self.id, title: Self.title, status: .ok, detail: detail, data: data), store)
        } catch {
            data["error"] = .string("\(error)")
            return (failed("\(error)", hint: "see journalctl -u ftms-bridge; the disk may be full or failing", data), store)
        }
    }

    /// `45 s`, `12 min`, `5 h`, `3 d`.
    static func ageText(_ seconds: Int64) -> String {
        switch seconds {
        case ..<120: "\(seconds) s"
        case ..<7200: "\(seconds / 60) min"
        case ..<172_800: "\(seconds / 3600) h"
        default: "\(seconds / 86_400) d"
        }
    }

    private func failed(_ detail: String, hint: String, _ data: [String: JSONValue]) -> CheckResult {
        CheckResult(id: Self.id, title: Self.title, status: .failed, detail: detail, hint: hint, data: data)
    }
}
