public import Glibc
import OwnThread

/// A short-lived program run to its end (a `sqlite3` editing a store as a second process would,
/// a probe run as another user): its exit status and what it wrote on stdout.
public struct ProgramResult: Sendable {
    /// The exit status, or 128 + the signal that ended it.
    public var status: Int32
    public var standardOutput: String
}

/// Runs `arguments` (the first is the program's path) to its end, on a thread of its own.
///
/// The read of its output and the wait for its exit block, so they happen on a thread of their
/// own: a wait on a cooperative thread, with a 2-core box's two pool threads taken, can stall
/// every other suite.
public func runProgram(_ arguments: [String]) async throws -> ProgramResult {
    try await onOwnThread { try runToEnd(arguments) }
}

/// Why a program could not be run.
public struct ProgramError: Error, CustomStringConvertible {
    public let description: String
}

private func runToEnd(_ arguments: [String]) throws -> ProgramResult {
    // Close-on-exec, so another test's child started meanwhile does not hold the write end
    // open (the output's end would wait for that child to exit).
    var pipe: [Int32] = [0, 0]
    guard Glibc.pipe(&pipe) == 0 else { throw ProgramError(description: "pipe failed: errno \(errno)") }
    for end in pipe { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    let pid: pid_t
    do {
        pid = try spawnChild(arguments, stdout: .descriptor(pipe[1]))
        close(pipe[1])
    } catch {
        close(pipe[0])
        close(pipe[1])
        throw ProgramError(description: "\(error)")
    }
    var output: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(pipe[0], $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { break }
        output.append(contentsOf: buffer[0..<count])
    }
    close(pipe[0])
    return ProgramResult(status: ChildExit.reap(pid), standardOutput: String(decoding: output, as: UTF8.self))
}
