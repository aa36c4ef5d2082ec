import BlueZTesting
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A program run as a real process with stdout and stderr in files, started with no signal
/// blocked (test threads block most, and a child inherits the mask), so SIGTERM stops it.
final class ChildProcess: @unchecked Sendable {
    let pid: pid_t
    let stdoutPath: String
    let stderrPath: String
    private var status: Int32?

    /// The built product `name`, next to the running test bundle (where SwiftPM puts every
    /// product of the build).
    static func builtProduct(_ name: String) -> String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name).path
    }

    init(_ executable: String, _ arguments: [String], logDirectory: String, name: String, stdin: String? = nil) throws {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw TestFailure("no \(executable): build every product first (swift build --build-tests)")
        }
        let unique = "\(name)-\(UUID().uuidString.prefix(8))"
        stdoutPath = logDirectory + "/\(unique).out"
        stderrPath = logDirectory + "/\(unique).err"
        var stdinPath = "/dev/null"
        if let stdin {
            stdinPath = logDirectory + "/\(unique).in"
            try Data(stdin.utf8).write(to: URL(fileURLWithPath: stdinPath))
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdinPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard spawned == 0 else { throw TestFailure("cannot start \(executable): error \(spawned)") }
        self.pid = pid
    }

    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    func signal(_ signal: Int32) {
        if status == nil { kill(pid, signal) }
    }

    /// The exit status (128 + signal when killed), or nil if still running at `limit`.
    func wait(within limit: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + limit
        while status == nil {
            if let exited = ChildExit.poll(pid) {
                status = exited
                break
            }
            if ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return status
    }

    /// Runs to the end (killed at `limit`), for commands.
    static func run(
        _ executable: String, _ arguments: [String], logDirectory: String, stdin: String? = nil, limit: Duration = .seconds(60)
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        let process = try ChildProcess(executable, arguments, logDirectory: logDirectory, name: "run", stdin: stdin)
        guard let status = await process.wait(within: limit) else {
            process.signal(SIGKILL)
            _ = await process.wait(within: .seconds(5))
            throw TestFailure("\(arguments.first ?? executable) did not finish within \(limit): \(process.stderr)")
        }
        return (status, process.stdout, process.stderr)
    }

    deinit {
        if status == nil { ChildExit.kill(pid) }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
