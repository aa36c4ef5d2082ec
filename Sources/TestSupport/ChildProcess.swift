public import Foundation
import Glibc
import ProcessOutput
import Synchronization

/// A program the tests run as a real process: stdin from a file (or /dev/null), stdout and
/// stderr into files the test reads whenever it likes, started by ``spawnChild(_:stdin:stdout:stderr:extraEnvironment:)``
/// with no signal blocked, so SIGTERM stops it as systemd would. Waiting polls the
/// child (``ChildExit``) between sleeps: it never holds a cooperative thread in waitpid.
public final class ChildProcess: @unchecked Sendable {
    public let pid: pid_t
    public let stdoutPath: String
    public let stderrPath: String
    /// The directory made for the output files when the caller named none, removed at the end.
    private let ownDirectory: TemporaryDirectory?
    private let reaped = Mutex<Int32?>(nil)

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The built product `name`, next to the running test bundle (where SwiftPM puts every
    /// product of the build).
    public static func builtProduct(_ name: String) -> String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name).path
    }

    /// `environment` is laid over this process's (a private bus's address, say).
    public init(
        _ executable: String, _ arguments: [String], logDirectory: String? = nil, name: String = "child", stdin: String? = nil,
        environment: [String: String] = [:]
    ) throws {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw Failure(description: "no \(executable): build every product first (swift build --build-tests)")
        }
        ownDirectory = logDirectory == nil ? try TemporaryDirectory(prefix: "child") : nil
        let directory = logDirectory ?? ownDirectory?.path ?? "/tmp"
        let unique = "\(name)-\(UUID().uuidString.prefix(8))"
        stdoutPath = directory + "/\(unique).out"
        stderrPath = directory + "/\(unique).err"
        var stdinPath = "/dev/null"
        if let stdin {
            stdinPath = directory + "/\(unique).in"
            try Data(stdin.utf8).write(to: URL(fileURLWithPath: stdinPath))
        }
        pid = try spawnChild(
            [executable] + arguments, stdin: .file(stdinPath), stdout: .file(stdoutPath), stderr: .file(stderrPath), extraEnvironment: environment)
    }

    public var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    public var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Sends `signal`, unless the child has been reaped (its pid may be someone else's by then).
    public func signal(_ signal: Int32) {
        reaped.withLock { status in
            if status == nil { kill(pid, signal) }
        }
    }

    /// The exit status (128 + signal when killed), or nil if still running after `limit`.
    public func wait(within limit: Duration = .seconds(20)) async -> Int32? {
        try? await waitFor("\(pid) to exit", timeout: limit, every: .milliseconds(2)) { () -> Int32? in
            reaped.withLock { status in
                if status == nil { status = ChildExit.poll(pid) }
                return status
            }
        }
    }

    /// Kills the child (if still running); it is reaped on a thread of its own.
    public func stop() {
        reaped.withLock { status in
            if status == nil {
                ChildExit.killInBackground(pid)
                status = 128 + SIGKILL
            }
        }
    }

    /// Runs to the end (killed at `limit`), for commands: status, stdout, stderr.
    public static func run(
        _ executable: String, _ arguments: [String], logDirectory: String? = nil, stdin: String? = nil, limit: Duration = .seconds(60)
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        let process = try ChildProcess(executable, arguments, logDirectory: logDirectory, name: "run", stdin: stdin)
        guard let status = await process.wait(within: limit) else {
            process.stop()
            throw Failure(description: "\(arguments.first ?? executable) did not finish within \(limit): \(process.stderr)")
        }
        return (status, process.stdout, process.stderr)
    }

    deinit {
        stop()
    }
}
