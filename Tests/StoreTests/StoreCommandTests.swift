import TestSupport
import Foundation
import Testing
import Workout
@testable import Store

/// The store commands as real processes, as an operator runs them on a gateway whose daemon is
/// stopped: the open, checkpointed session in `status --standalone` and `queue`; a damaged
/// database salvaged by `salvage`; a state directory that cannot be written named for what it is.
@Suite("Store commands")
struct StoreCommandTests {
    static let bridge = ChildProcess.builtProduct("ftms-bridge")

    static func run(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await ChildProcess.run(bridge, arguments)
    }

    /// After `systemctl stop` mid-ride, the checkpoint is the session: both texts show it.
    @Test func theOpenCheckpointedSessionShowsInStatusAndQueue() async throws {
        let directory = try TemporaryDirectory(prefix: "ftms-open")
        let store = try GatewayStore(directory: directory.path)
        let open = try CheckpointStoreTests.snapshot()
        try await store.save(open)
        try await store.enqueue(Sessions.summary(1, offset: 0))
        try store.close()

        let status = try await Self.run(["status", "--standalone", "--state-dir", directory.path])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("1 pending, 0 uploaded, 0 dead, 1 open"), "\(status.stdout)")
        let line = try #require(status.stdout.split(separator: "\n").first { $0.contains(open.sessionID) })
        #expect(line.contains("on SF-Bike-0001") && line.contains("the daemon resumes or closes it"), "\(line)")

        let queue = try await Self.run(["queue", "--state-dir", directory.path])
        #expect(queue.status == 0, "\(queue.stderr)")
        let row = try #require(queue.stdout.split(separator: "\n").first { $0.contains(open.sessionID) }, "\(queue.stdout)")
        #expect(row.contains("open (SF-Bike-0001, checkpointed"), "\(row)")
        #expect(row.contains("01:40"), "100 s ridden: \(row)")
        #expect(queue.stdout.contains(Sessions.id(1)))
    }

    /// `salvage` reads a damaged database the daemon moved aside into the queue, once, and
    /// renames it so status stops pointing at it.
    @Test func salvageQueuesADamagedDatabasesSessionsOnce() async throws {
        let source = try TemporaryDirectory(prefix: "ftms-salvage")
        let (_, _, layout) = try await DamageTests.makeStore(in: source)
        let damaged = try DamageTests.damage(source.file(GatewayStore.fileName), .middlePage, layout)
        let lost = damaged.compactMap { layout.sessionLeaves[$0] }.reduce(0, +)
        let live = try TemporaryDirectory(prefix: "ftms-salvage")
        let aside = live.file(GatewayStore.fileName + ".damaged-20261121T080000Z")
        try FileManager.default.copyItem(atPath: source.file(GatewayStore.fileName), toPath: aside)
        try GatewayStore(directory: live.path).close()

        let before = try await Self.run(["status", "--standalone", "--state-dir", live.path])
        #expect(before.stdout.contains("damaged:") && before.stdout.contains("run `ftms-bridge salvage`"), "\(before.stdout)")

        let salvage = try await Self.run(["salvage", "--state-dir", live.path])
        #expect(salvage.status == 0, "\(salvage.stderr)")
        let read = DamageTests.sessionCount - lost + 1
        #expect(salvage.stdout.contains("\(aside): \(read) session(s) read (1 open, closed as finished)"), "\(salvage.stdout)")
        #expect(salvage.stdout.contains("queued \(read - 1) as pending, 1 as uploaded; 0 already in the queue"), "\(salvage.stdout)")
        #expect(salvage.stdout.contains("row id(s) on damaged pages skipped"))
        let renamed = live.file(GatewayStore.fileName + ".salvaged-")
        #expect(TemporaryDirectory.entries(live.path).contains { live.file($0).hasPrefix(renamed) }, "renamed, never deleted")
        #expect(!FileManager.default.fileExists(atPath: aside))

        let after = try await Self.run(["status", "--standalone", "--state-dir", live.path, "--json"])
        #expect(after.stdout.contains("\"pending\":\(read - 1)"), "\(after.stdout)")
        #expect(after.stdout.contains("\"damaged_files\":[]"), "\(after.stdout)")
        #expect(try await Self.run(["salvage", "--state-dir", live.path]).stdout.contains("nothing to salvage"))

        let salvaged = try #require(TemporaryDirectory.entries(live.path).first { $0.hasPrefix(GatewayStore.fileName + ".salvaged-") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") })
        let again = try await Self.run(["salvage", "--state-dir", live.path, "--from", live.file(salvaged), "--json"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("\"queued_pending\":0") && again.stdout.contains("\"already_queued\":\(read)"), "\(again.stdout)")
    }

    /// A state directory on a read-only file system (a tmpfs remounted read-only in a mount
    /// namespace of its own, when root may) or one this user may not write: `status` still
    /// reads the file (read-only), and its one line on stderr names the cause, says the database
    /// is not damaged, and never advises moving it aside.
    @Test func anUnwritableStateDirectoryIsNamedNotCalledDamaged() async throws {
        let directory = try TemporaryDirectory(prefix: "ftms-ro")
        let state = directory.file("state")
        let store = try GatewayStore(directory: state)
        try await store.enqueue(Sessions.summary(1, offset: 0))
        try store.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: state + "/" + GatewayStore.fileName))
        let result: (status: Int32, stdout: String, stderr: String)
        let cause: String
        if geteuid() == 0 {
            let mount = directory.file("mnt")
            try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: false)
            let script = "mount -t tmpfs -o size=4m tmpfs \(mount) && cp -a \(state)/. \(mount)/ && mount -o remount,ro \(mount) && exec \(Self.bridge) status --standalone --state-dir \(mount)"
            result = try await ChildProcess.run("/usr/bin/unshare", ["--mount", "/bin/sh", "-c", script])
            cause = "mounted read-only (EROFS)"
        } else {
            #expect(chmod(state, 0o500) == 0)
            defer { chmod(state, 0o700) }
            result = try await Self.run(["status", "--standalone", "--state-dir", state])
            cause = "(EACCES"
        }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("1 pending"), "\(result.stdout)")
        let line = result.stderr.trimmingCharacters(in: .newlines)
        #expect(!line.contains("\n"), "one line: \(line)")
        #expect(line.contains("cannot be written") && line.contains(cause), "\(line)")
        #expect(line.contains("not damaged"), "\(line)")
        #expect(!line.contains("move it aside") && !line.contains("is damaged") && !line.contains("unreadable"), "\(line)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: state + "/" + GatewayStore.fileName)) == before)
    }

    /// A bad page does not stop the gym: the daemon starts on a damaged database, moves it aside
    /// with the time in its name, keeps the device id and the login, puts back the pending
    /// sessions from the session journal, and says so in the journal and in `status`; `salvage`
    /// then queues the rest beside the running daemon.
    @Test
    func theDaemonStartsOnADamagedDatabaseAndSaysSo() async throws {
        let directory = try TemporaryDirectory(prefix: "ftms-daemon-damage")
        let state = try TemporaryDirectory(prefix: "ftms-daemon-damage")
        let (deviceID, _, layout) = try await DamageTests.makeStore(in: state)
        let lost = try DamageTests.damage(state.file(GatewayStore.fileName), .middlePage, layout).compactMap { layout.sessionLeaves[$0] }.reduce(0, +)
        let control = directory.file("control.sock")
        let config = directory.file("config.toml")
        try Data(
            """
            [state]
            directory = "\(state.path)"
            [metrics_socket]
            path = "\(directory.file("metrics.sock"))"
            [control_socket]
            path = "\(control)"
            [prometheus]
            enabled = false
            [bluetooth]
            bus_address = "unix:path=\(directory.file("no-bus"))"

            """.utf8
        ).write(to: URL(fileURLWithPath: config))
        let daemon = try ChildProcess(ChildProcess.builtProduct("ftms-bridged"), ["--config", config], logDirectory: directory.path, name: "daemon")
        defer { daemon.stop() }
        let status = try await waitFor("the daemon's status", timeout: .seconds(60), every: .milliseconds(100)) { () -> String? in
            let answer = try await Self.run(["status", "--control-socket", control, "--state-dir", state.path, "--json"])
            return answer.status == 0 && answer.stdout.contains("\"store\"") ? answer.stdout : nil
        }
        #expect(status.contains("\"device_id\":\"\(deviceID)\""), "the device id kept: \(status)")
        #expect(status.contains("\"moved_aside\":{") && status.contains("\"kept_device_id\":true") && status.contains("\"kept_login\":true"), "\(status)")
        #expect(status.contains("\"logged_in\":true"))
        let aside = try #require(DamagedFiles.list(in: state.path).first?.path)
        #expect(daemon.stderr.contains("state database was DAMAGED") && daemon.stderr.contains(aside), "\(daemon.stderr)")
        let text = try await Self.run(["status", "--control-socket", control, "--state-dir", state.path])
        #expect(text.stdout.contains("damaged:") && text.stdout.contains(aside) && text.stdout.contains("ftms-bridge salvage"), "\(text.stdout)")
        #expect(text.stdout.contains("store:") && text.stdout.contains("writable"), "\(text.stdout)")

        let salvage = try await Self.run(["salvage", "--state-dir", state.path])
        #expect(salvage.status == 0, "\(salvage.stderr)")
        // The damaged page's rows came back at the start from the session journal, which
        // holds every session not uploaded: all 299 of them, and the open one salvage closed.
        #expect(lost > 0)
        #expect(daemon.stderr.contains("put back in the queue from the session journal"), "\(daemon.stderr)")
        let queued = DamageTests.sessionCount - 1 + 1
        let after = try await Self.run(["status", "--control-socket", control, "--state-dir", state.path, "--json"])
        #expect(after.stdout.contains("\"pending\":\(queued)"), "\(after.stdout)")
        #expect(after.stdout.contains("\"damaged_files\":[]"), "\(after.stdout)")
        daemon.signal(SIGTERM)
        #expect(await daemon.wait(within: .seconds(30)) == 0)
    }
}
