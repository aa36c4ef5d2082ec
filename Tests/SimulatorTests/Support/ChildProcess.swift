import BlueZTesting
import Foundation

/// A program run with stdout and stderr in files, its signal mask cleared (test threads
/// block most signals, and a child would inherit that).
final class ChildProcess: @unchecked Sendable {
    let directory: URL
    private(set) var pid: pid_t = 0

    var stdoutPath: String { directory.appendingPathComponent("stdout").path }
    var stderrPath: String { directory.appendingPathComponent("stderr").path }
    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    struct SpawnFailure: Error, CustomStringConvertible {
        let description: String
    }

    init(_ program: String, _ arguments: [String]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ftms-child-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let spawned = posix_spawn(&pid, program, &actions, &attributes, argv, environ)
        guard spawned == 0 else { throw SpawnFailure(description: "cannot run \(program) (error \(spawned))") }
    }

    /// Waits for the exit (killing it at the deadline); the status, 128 + signal if killed.
    @discardableResult
    func wait(within limit: Duration = .seconds(20)) -> Int32 {
        guard pid > 0 else { return -1 }
        let status = ChildExit.wait(pid, within: limit) ?? -1
        pid = 0
        return status
    }

    func stop() {
        if pid > 0 {
            kill(pid, SIGKILL)
            wait()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }
}
