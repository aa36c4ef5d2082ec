public import Glibc

/// A short-lived program run to its end (a `sqlite3` editing a store as a second process would,
/// a probe run as another user): its exit status and what it wrote on stdout.
public struct ProgramResult: Sendable {
    /// The exit status, or 128 + the signal that ended it.
    public var status: Int32
    public var standardOutput: String
}

/// Runs `arguments` (the first is the program's path) to its end, on a thread of its own.
///
/// Not Foundation's `Process`: its `waitUntilExit` spins a run loop that can miss the child's
/// exit, and called from a test it holds a cooperative thread meanwhile; with a 2-core box's
/// two pool threads taken (one by that wait, one by a busy test) a CI run hung for 15 minutes.
/// posix_spawn, a blocking read of the pipe and waitpid on a dedicated thread cannot do either.
public func runProgram(_ arguments: [String]) async throws -> ProgramResult {
    try await blocking { try runToEnd(arguments) }
}

/// Why a program could not be run.
public struct ProgramError: Error, CustomStringConvertible {
    public let description: String
}

private func runToEnd(_ arguments: [String]) throws -> ProgramResult {
    guard let path = arguments.first else { throw ProgramError(description: "no program given") }
    var pipe: [Int32] = [0, 0]
    guard Glibc.pipe(&pipe) == 0 else { throw ProgramError(description: "pipe failed: errno \(errno)") }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
    posix_spawn_file_actions_addclose(&actions, pipe[0])
    posix_spawn_file_actions_addclose(&actions, pipe[1])
    let argv = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = spawnWithSignalsUnblocked(&pid, path, &actions, argv, environ)
    close(pipe[1])
    guard spawned == 0 else {
        close(pipe[0])
        throw ProgramError(description: "cannot start \(path) (error \(spawned))")
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
