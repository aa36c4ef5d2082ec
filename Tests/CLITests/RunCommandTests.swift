import TestSupport
import Foundation
import Testing

/// `ftms-bridge run` is a thin exec of `ftms-bridged`, found beside it: the same flags reach
/// the daemon, and its answers (config OK, a refused config) come back as the daemon's.
@Suite("ftms-bridge run execs ftms-bridged")
struct RunCommandTests {
    func config(_ text: String, in scratch: TemporaryDirectory) throws -> URL {
        let file = URL(fileURLWithPath: scratch.file("config.toml"))
        try Data(text.utf8).write(to: file)
        return file
    }

    @Test func checkConfigGoesThroughToTheDaemon() async throws {
        let scratch = try TemporaryDirectory(prefix: "ftms-run")
        let file = try config("[log]\nlevel = \"debug\"\n", in: scratch)
        let result = try await ProcessRunner.run(["run", "--config", file.path, "--check-config"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "config OK: \(file.path)\n")
    }

    @Test func printConfigIsTheDaemonsRendering() async throws {
        let scratch = try TemporaryDirectory(prefix: "ftms-run")
        let file = try config("[log]\nlevel = \"debug\"\n", in: scratch)
        let viaRun = try await ProcessRunner.run(["run", "--print-config", "--config", file.path])
        #expect(viaRun.status == 0, "\(viaRun.stderr)")
        #expect(viaRun.stdout.contains("level = \"debug\""))
        #expect(!viaRun.stdout.contains("[dashboard]"))
    }

    /// `[dashboard]` left the daemon: one line saying what replaced it, exit 1.
    @Test func aDashboardTableIsRefusedWithWhatReplacedIt() async throws {
        let scratch = try TemporaryDirectory(prefix: "ftms-run")
        let file = try config("[dashboard]\nenabled = true\nlisten = \"127.0.0.1:8088\"\n", in: scratch)
        let result = try await ProcessRunner.run(["run", "--config", file.path, "--check-config"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("ftms-bridged: \(file.path): dashboard: "))
        #expect(result.stderr.contains("`ftms-bridge dashboard`"))
        #expect(result.stderr.contains("ftms-bridge-dashboard.service"))
    }

    /// A start that fails half-way (the control socket cannot be bound) is one line and exit 1,
    /// and closes what it had opened: the metrics socket bound before it is gone again, so the
    /// restart systemd makes finds its place free.
    @Test func aStartThatFailsHalfWayClosesWhatItOpened() async throws {
        let scratch = try TemporaryDirectory(prefix: "ftms-run")
        let directory = scratch.url
        let blocker = directory.appendingPathComponent("a-file")
        try Data("not a directory".utf8).write(to: blocker)
        let metrics = directory.appendingPathComponent("metrics.sock").path
        let file = directory.appendingPathComponent("config.toml")
        try Data(
            """
            [state]
            directory = "\(directory.path)/state"
            [metrics_socket]
            path = "\(metrics)"
            [control_socket]
            path = "\(blocker.path)/control.sock"
            [prometheus]
            enabled = false
            [bluetooth]
            bus_address = "unix:path=\(directory.path)/no-bus"

            """.utf8
        ).write(to: file)
        let result = try await ProcessRunner.run(["run", "--config", file.path], timeout: .seconds(30))
        #expect(result.status == 1, "\(result.stderr)")
        let errors = result.stderr.split(separator: "\n").filter { $0.contains("control socket") }
        #expect(errors.count == 1, "\(result.stderr)")
        #expect(!result.stderr.contains("READY"))
        #expect(!FileManager.default.fileExists(atPath: metrics), "the metrics socket was left behind")
    }

    @Test func bothExecutablesPrintOneVersion() async throws {
        let cli = try await ProcessRunner.run(["--version"])
        let daemon = try await ProcessRunner.run(["run", "--version"])
        #expect(cli.status == 0 && daemon.status == 0)
        #expect(!cli.stdout.isEmpty)
        #expect(cli.stdout == daemon.stdout)
    }
}
