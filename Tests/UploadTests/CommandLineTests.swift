import TestSupport
import Foundation
import Store
import Testing
import Workout

/// `ftms-bridge login | logout | status | queue | upload | replay --queue` as real processes
/// against the reference backend.
@Suite("Account commands")
struct CommandLineTests {
    static let bridge = ChildProcess.builtProduct("ftms-bridge")
    static let captures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("captures").path

    func bridge(_ arguments: [String], stdin: String? = nil) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await ChildProcess.run(Self.bridge, arguments, stdin: stdin)
    }

    /// `status` asks a running daemon first: these tests name a socket in their own directory
    /// where none listens, so a daemon running on this box is never asked.
    static func noDaemon(in directory: TemporaryDirectory) -> [String] {
        ["--control-socket", directory.file("no-daemon.sock")]
    }

    /// An operator's round: replay captures into the queue, log in with the id token on
    /// stdin, upload, and read status and queue, all from the command line.
    @Test func replayLoginUploadStatusQueue() async throws {
        let backend = try await ReferenceBackend()
        let directory = try TemporaryDirectory(prefix: "ftms-cli")
        let state = ["--state-dir", directory.path]
        let remote = state + ["--backend", backend.url]
        let files = ["bike-steady.ftmscap", "bike-pause.ftmscap", "rower-viking-split.ftmscap"].map { Self.captures + "/" + $0 }
        let replay = try await bridge(["replay", "--json", "--queue"] + files + state)
        #expect(replay.status == 0, "\(replay.stderr)")
        let summaries = replay.stdout.split(separator: "\n")
        #expect(summaries.count >= 3)
        #expect(replay.stderr.contains("queued \(summaries.count) sessions as pending"))
        let again = try await bridge(["replay", "--queue"] + files + state)
        #expect(again.stderr.contains("queued 0 sessions as pending"), "replaying again queues nothing twice")

        let secret = "test:cli-rider"
        let login = try await bridge(["login", "--provider", "test"] + remote, stdin: secret + "\n")
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stdout.contains("user cli-rider"))
        #expect(login.stdout.contains("\(summaries.count) sessions pending upload"))

        let status = try await bridge(["status", "--json"] + state + Self.noDaemon(in: directory))
        let before = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        #expect(before["pending"] as? Int == summaries.count)
        #expect(before["logged_in"] as? Bool == true)

        let upload = try await bridge(["upload"] + remote)
        #expect(upload.status == 0, "\(upload.stderr)")
        #expect(upload.stdout.contains("batch 1: \(summaries.count) sessions: \(summaries.count) accepted, 0 duplicates"))
        #expect(upload.stdout.contains("stats: the backend agrees"))

        let queue = try await bridge(["queue", "--json"] + state)
        let rows = queue.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(rows.count == summaries.count)
        #expect(rows.allSatisfy { $0["upload_status"] as? String == "uploaded" })
        let stored = try await backend.storedSessions()
        #expect(Set(stored.map(\.id)) == Set(rows.compactMap { $0["session_id"] as? String }))

        let text = try await bridge(["status"] + state + Self.noDaemon(in: directory))
        #expect(text.stdout.contains("0 pending, \(summaries.count) uploaded, 0 dead"))
        for output in [replay, login, status, upload, queue, text] {
            #expect(!output.stdout.contains(secret) && !output.stderr.contains(secret), "the id token leaked")
        }
        let tokens = try #require(try await GatewayStore(directory: directory.path).tokens())
        #expect(!text.stdout.contains(tokens.accessToken) && !text.stdout.contains(tokens.refreshToken))
    }

    @Test func loginReadsTheIDTokenFromAFile() async throws {
        let backend = try await ReferenceBackend()
        let scratch = try TemporaryDirectory(prefix: "ftms-cli")
        let state = scratch.file("state")
        let file = scratch.file("id-token")
        try Data("test:file-rider\n".utf8).write(to: URL(fileURLWithPath: file))
        let login = try await bridge(["login", "--provider", "test", "--id-token-file", file, "--state-dir", state, "--backend", backend.url])
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stdout.contains("user file-rider"))
        let refused = try await bridge(["login", "--provider", "test", "--state-dir", state, "--backend", backend.url], stdin: "garbage")
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("ftms-bridge: login: invalid_token: "))
        #expect(refused.stderr.split(separator: "\n").count == 1)
    }

    @Test func logoutRefusesWithPendingUnlessForced() async throws {
        let backend = try await ReferenceBackend()
        let directory = try TemporaryDirectory(prefix: "ftms-cli")
        let remote = ["--state-dir", directory.path, "--backend", backend.url]
        _ = try await bridge(["login", "--provider", "test"] + remote, stdin: "test:leaver")
        try await GatewayStore(directory: directory.path).enqueue([TestSessions.summary(1), TestSessions.summary(2)])
        let refused = try await bridge(["logout"] + remote)
        #expect(refused.status == 1)
        #expect(refused.stderr == "ftms-bridge: logout: 2 sessions are not uploaded yet; use --upload-first to upload them, or --force to discard them\n")
        let both = try await bridge(["logout", "--force", "--upload-first"] + remote)
        #expect(both.status != 0)
        let forced = try await bridge(["logout", "--force"] + remote)
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(forced.stdout.contains("2 sessions never uploaded were discarded"))
        let status = try await bridge(["status", "--json", "--state-dir", directory.path] + Self.noDaemon(in: directory))
        #expect(status.stdout.contains(#""logged_in":false"#))
        #expect(status.stdout.contains(#""pending":0"#))
    }

    @Test func queueRetriesDeadSessions() async throws {
        let directory = try TemporaryDirectory(prefix: "ftms-cli")
        let store = try GatewayStore(directory: directory.path)
        let summary = TestSessions.summary(1)
        try await store.enqueue(summary)
        try await store.record([summary.sessionID: .dead(error: "validation_error: duration is negative")])
        let listed = try await bridge(["queue", "--status", "dead", "--state-dir", directory.path])
        #expect(listed.stdout.contains(summary.sessionID))
        #expect(listed.stdout.contains("dead"))
        #expect(listed.stdout.contains("validation_error: duration is negative"))
        let retried = try await bridge(["queue", "--retry-dead", "--state-dir", directory.path])
        #expect(retried.stdout == "1 dead-letter sessions moved back to pending\n")
        #expect(try await store.counts() == QueueCounts(pending: 1))
    }

    /// A corrupt database: every command refuses with one line saying it is damaged (the daemon,
    /// not a command, moves it aside), and the file is left alone.
    @Test func aCorruptDatabaseRefusesToStart() async throws {
        let directory = try TemporaryDirectory(prefix: "ftms-cli")
        let path = directory.file(GatewayStore.fileName)
        try Data(repeating: 0x42, count: 4096).write(to: URL(fileURLWithPath: path))
        for command in [["status"] + Self.noDaemon(in: directory), ["queue"], ["upload", "--backend", "http://127.0.0.1:9"]] {
            let result = try await bridge(command + ["--state-dir", directory.path])
            #expect(result.status == 1)
            #expect(result.stderr.split(separator: "\n").count == 1)
            #expect(result.stderr.contains("is damaged (file is not a database); the daemon moves it aside"), "\(result.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(repeating: 0x42, count: 4096))
    }
}
