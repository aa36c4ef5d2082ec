import OwnThread
import TestSupport
import Foundation
import Glibc

/// The built `ftms-backend` run as a real process, as the upload tests and the demo run it.
///
/// Started with no signal blocked (test threads block most, and a child inherits the mask, so
/// it would ignore SIGTERM), stdout on a pipe read for the `listening` line, stderr to a file,
/// and `--exit-with-stdin` on a pipe this process holds, so a test run that dies leaves no
/// backend behind. Its waits (for the `listening` line, for the exit) block threads of their
/// own, never the cooperative pool's.
final class BackendProcess: @unchecked Sendable {
    let pid: pid_t
    let port: Int
    let stdoutLine: String
    /// Holds the stderr file; removed (after the child is killed) when this goes.
    private let scratch: TemporaryDirectory
    private let stderrPath: String
    /// The write end of the child's stdin: closing it (or dying) stops the child.
    private let lifeline: Int32
    private var lifelineClosed = false
    private var exitStatus: Int32?

    static var binary: String { ChildProcess.builtProduct("ftms-backend") }

    /// Starts the backend on a free port and waits for its `listening` line.
    init(_ arguments: [String]) async throws {
        scratch = try TemporaryDirectory(prefix: "ftms-backend")
        stderrPath = scratch.file("stderr")
        var pipeEnds: [Int32] = [0, 0]
        var stdinEnds: [Int32] = [0, 0]
        guard Self.closeOnExecPipe(&pipeEnds), Self.closeOnExecPipe(&stdinEnds) else { throw TestFailure("pipe failed") }
        let pid = try Self.spawn(["--port", "0", "--exit-with-stdin"] + arguments, stdin: stdinEnds[0], stdout: pipeEnds[1], stderrPath: stderrPath)
        close(pipeEnds[1])
        close(stdinEnds[0])
        defer { close(pipeEnds[0]) }
        self.pid = pid
        lifeline = stdinEnds[1]
        let reading = pipeEnds[0]
        let line = await onOwnThread { Self.readLine(from: reading, timeout: .seconds(60)) }
        stdoutLine = line ?? ""
        guard let line, line.hasPrefix("listening http://127.0.0.1:"), let port = Int(line.split(separator: ":").last ?? "") else {
            ChildExit.killInBackground(pid)
            throw TestFailure("ftms-backend did not report a port: \(line ?? "(nothing)"); stderr: \((try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "")")
        }
        self.port = port
    }

    deinit {
        if !lifelineClosed { close(lifeline) }
        if exitStatus == nil {
            ChildExit.killInBackground(pid)
        }
    }

    /// Closes the child's stdin from this side, as a dying parent would.
    func closeLifeline() {
        close(lifeline)
        lifelineClosed = true
    }

    /// The caller reaped the child itself.
    func markReaped() {
        exitStatus = 0
    }

    var stderr: String {
        (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
    }

    /// Sends `signal` and waits (up to 30 s, then SIGKILL); the exit status, or 128 + signal.
    func stop(_ signal: Int32 = SIGTERM) async -> Int32 {
        if let exitStatus { return exitStatus }
        let status = await ChildExit.terminate(pid, signal: signal, grace: .seconds(30))
        exitStatus = status
        return status
    }

    /// Runs the backend to completion (for refusals at start): status, stdout, stderr.
    static func run(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        let scratch = try TemporaryDirectory(prefix: "ftms-backend")
        let out = scratch.file("stdout")
        let err = scratch.file("stderr")
        let descriptor = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let pid = try spawn(arguments, stdin: nil, stdout: descriptor, stderrPath: err)
        close(descriptor)
        let status = await ChildExit.exit(of: pid, within: .seconds(60)) ?? -1
        return (status, (try? String(contentsOfFile: out, encoding: .utf8)) ?? "", (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
    }

    private static func spawn(_ arguments: [String], stdin: Int32?, stdout: Int32, stderrPath: String) throws -> pid_t {
        try spawnChild([binary] + arguments, stdin: stdin.map { .descriptor($0) } ?? .null, stdout: .descriptor(stdout), stderr: .file(stderrPath))
    }

    /// A pipe neither of whose ends leaks into other children: a stdin write end inherited by
    /// some other process would keep a backend alive after its test ended. (A spawn on another
    /// thread between `pipe` and `fcntl` can still inherit it; the window is two system calls.)
    private static func closeOnExecPipe(_ ends: inout [Int32]) -> Bool {
        guard pipe(&ends) == 0 else { return false }
        return fcntl(ends[0], F_SETFD, FD_CLOEXEC) == 0 && fcntl(ends[1], F_SETFD, FD_CLOEXEC) == 0
    }

    /// The first line on `descriptor`, or `nil` at end of file or after `timeout`. Blocks.
    private static func readLine(from descriptor: Int32, timeout: Duration) -> String? {
        let deadline = ContinuousClock.now + timeout
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while ContinuousClock.now < deadline {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) >= 0 || errno == EINTR else { return nil }
            guard poller.revents != 0 else { continue }
            guard read(descriptor, &byte, 1) == 1 else { return nil }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        return nil
    }
}
