import JSON
import TestSupport
import Foundation
import Testing

/// The daemon, `status` and `doctor` find the state directory in one order (the flag, else
/// the config file's key, else `$STATE_DIRECTORY`, else the default), so one flag, file and
/// environment mean one directory to all three: run as the real programs.
@Suite("Path precedence across commands")
struct PathPrecedenceTests {
    /// Which of the places name the state directory (under a fresh temporary directory), and
    /// which of them wins.
    struct Row: Sendable, CustomStringConvertible {
        var flag = false
        var fileKey = false
        var systemd = false
        /// "flag", "file" or "systemd".
        var winner: String
        var description: String { "flag \(flag), file \(fileKey), systemd \(systemd)" }
    }

    /// No row leaves every place empty: the default (`/var/lib/ftms-bridge`) is the host's own
    /// state directory, which no test may touch; `GatewayPathsTests` holds that row.
    static let rows: [Row] = [
        Row(systemd: true, winner: "systemd"),
        Row(fileKey: true, winner: "file"),
        Row(fileKey: true, systemd: true, winner: "file"),
        Row(flag: true, systemd: true, winner: "flag"),
        Row(flag: true, fileKey: true, systemd: true, winner: "flag"),
    ]

    /// The directories of one row, and the arguments and environment that name them.
    struct Setup {
        let directory: TemporaryDirectory
        let config: String
        let environment: [String: String]
        let flag: [String]
        let expected: String

        init(_ row: Row) throws {
            let directory = try TemporaryDirectory(prefix: "ftms-paths")
            self.directory = directory
            let place = { (name: String) in directory.file(name) }
            config = place("config.toml")
            try Data((row.fileKey ? "[state]\ndirectory = \"\(place("file"))\"\n" : "").utf8).write(to: URL(fileURLWithPath: config))
            // Set even when empty: a STATE_DIRECTORY in the test runner's own environment must not leak in.
            environment = ["STATE_DIRECTORY": row.systemd ? place("systemd") : "", "RUNTIME_DIRECTORY": place("run")]
            flag = row.flag ? ["--state-dir", place("flag")] : []
            expected = place(row.winner)
        }
    }

    /// The directory `ftms-bridge status` opens: its database path, in its answer or in its refusal.
    static func statusDirectory(_ setup: Setup) async throws -> String? {
        let result = try await ProcessRunner.run(
            ["status", "--standalone", "--json", "--config", setup.config] + setup.flag, environment: setup.environment, timeout: .seconds(60))
        let database = (try? JSONReader.read(result.stdout))?["database"]?.string
            ?? result.stderr.split(separator: " ").first { $0.hasSuffix("/ftms-bridge.sqlite") || $0.hasSuffix("/ftms-bridge.sqlite:") }.map(String.init)
        return database.map { String($0.prefix { $0 != ":" }) }.map { ($0 as NSString).deletingLastPathComponent }
    }

    /// The directory `ftms-bridge doctor` checks, and the source it names.
    static func doctorDirectory(_ setup: Setup) async throws -> (path: String?, source: String?) {
        let result = try await ProcessRunner.run(
            ["doctor", "--json", "--config", setup.config, "--bus", "unix:path=" + setup.directory.file("no-bus")] + setup.flag,
            environment: setup.environment, timeout: .seconds(120))
        let check = (try? JSONReader.read(result.stdout))?["checks"]?.array?.first { $0["id"]?.string == "state-dir" }
        return (check?["data"]?["path"]?.string, check?["data"]?["source"]?.string)
    }

    /// The directory the daemon would use: `run --print-config` prints what `ftms-bridged` reads.
    static func daemonDirectory(_ setup: Setup) async throws -> String? {
        let result = try await ProcessRunner.run(["run", "--print-config", "--config", setup.config], environment: setup.environment, timeout: .seconds(60))
        guard let line = result.stdout.split(separator: "\n").drop(while: { $0 != "[state]" }).first(where: { $0.hasPrefix("directory = ") }) else { return nil }
        return String(line.dropFirst("directory = ".count)).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
    }

    @Test(arguments: rows)
    func statusFindsTheDirectory(row: Row) async throws {
        let setup = try Setup(row)
        #expect(try await Self.statusDirectory(setup) == setup.expected)
    }

    @Test(arguments: rows)
    func doctorFindsTheDirectory(row: Row) async throws {
        let setup = try Setup(row)
        let found = try await Self.doctorDirectory(setup)
        #expect(found.path == setup.expected)
        let sources = ["flag": "--state-dir", "file": "config state.directory", "systemd": "STATE_DIRECTORY"]
        #expect(found.source == sources[row.winner])
    }

    /// The daemon takes no `--state-dir`: without one, a command reads what the daemon reads.
    @Test(arguments: rows.filter { !$0.flag })
    func theDaemonFindsTheDirectory(row: Row) async throws {
        let setup = try Setup(row)
        #expect(try await Self.daemonDirectory(setup) == setup.expected)
    }

    /// One `--state-dir` (and one config and environment) means one directory to `status` and `doctor`.
    @Test func oneFlagOneDirectory() async throws {
        let setup = try Setup(Row(flag: true, fileKey: true, systemd: true, winner: "flag"))
        let status = try await Self.statusDirectory(setup)
        let doctor = try await Self.doctorDirectory(setup).path
        #expect(status != nil)
        #expect(status == doctor)
    }
}
