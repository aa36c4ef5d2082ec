import TestSupport
import Foundation

/// Runs the `ftms-bridge` binary that SwiftPM built next to this test bundle.
struct ProcessRunner {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
        /// Peak resident memory of the child's own program, in KiB: the highest `VmHWM` read
        /// from `/proc/PID/status` while it ran. (`wait4`'s `ru_maxrss` would also count the
        /// parent's memory at spawn time, which parallel tests make vary.)
        let maxResidentKiB: Int

        var lines: [Substring] { stdout.split(separator: "\n", omittingEmptySubsequences: true) }
    }

    static var binary: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("ftms-bridge")
    }

    /// Runs with stdin from `input` (a file, so large inputs need no feeding thread) and
    /// stdout/stderr to files, then reaps the child with `wait4` to read its peak memory.
    /// A child still running at `timeout` is killed, so a hang fails one test instead of
    /// stalling the suite.
    ///
    /// The wait happens on a thread of its own: a test waiting for a child (a decode of
    /// megabytes takes seconds) must not hold one of the two cooperative threads a 2-core
    /// machine has, or every other suite's timers and I/O stall with it.
    static func run(
        _ arguments: [String], stdinFile: URL? = nil, stdin: String? = nil, environment extra: [String: String] = [:],
        timeout: Duration = .seconds(120)
    ) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Swift.Result {
                    try runBlocking(arguments, stdinFile: stdinFile, stdin: stdin, environment: extra, timeout: timeout)
                })
            }.start()
        }
    }

    private static func runBlocking(
        _ arguments: [String], stdinFile: URL?, stdin: String?, environment extra: [String: String], timeout: Duration
    ) throws -> Result {
        let directory = try TemporaryDirectory(prefix: "ftms-cli")
        var input = stdinFile
        if let stdin {
            let file = URL(fileURLWithPath: directory.file("stdin"))
            try Data(stdin.utf8).write(to: file)
            input = file
        }
        let outPath = directory.file("stdout")
        let errPath = directory.file("stderr")

        let pid = try spawnChild(
            [binary.path] + arguments, stdin: input.map { .file($0.path) } ?? .null, stdout: .file(outPath), stderr: .file(errPath),
            extraEnvironment: extra)
        var status: Int32 = 0
        var usage = rusage()
        let deadline = ContinuousClock.now + timeout
        var peak = 0
        while true {
            peak = max(peak, residentHighWaterMark(of: pid))
            let reaped = wait4(pid, &status, WNOHANG, &usage)
            if reaped == pid || (reaped < 0 && errno != EINTR) { break }
            if ContinuousClock.now > deadline {
                kill(pid, SIGKILL)
                while wait4(pid, &status, 0, &usage) < 0, errno == EINTR {}
                break
            }
            usleep(2_000)
        }
        let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Result(
            status: exitStatus,
            stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "",
            maxResidentKiB: peak)
    }

    /// `VmHWM` of a running process, in KiB; 0 once it has exited.
    static func residentHighWaterMark(of pid: pid_t) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}

struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
