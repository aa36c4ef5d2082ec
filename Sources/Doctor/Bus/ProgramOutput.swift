import OwnThread
import ProcessOutput
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs a program and returns its first line of standard output, killing it if it has not
/// finished within a time limit. For `bluetoothd --version`, which prints one line and exits,
/// but which the doctor must not wait on forever if it does not.
enum ProgramOutput {
    /// The output, or why there is none (not started, killed at the limit, exit status).
    static func firstLine(of path: String, arguments: [String], timeout: Duration) async -> Result<String, ProgramFailure> {
        await onOwnThread { run(path, arguments, deadline: ContinuousClock.now + timeout) }
    }

    private static func run(_ path: String, _ arguments: [String], deadline: ContinuousClock.Instant) -> Result<String, ProgramFailure> {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { return .failure(ProgramFailure("cannot make a pipe: \(lastError())")) }
        let (readEnd, writeEnd) = (pipeEnds[0], pipeEnds[1])
        // Other probes spawn nothing, but keep our ends out of any child all the same.
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)
        defer { close(readEnd) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        var spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
        // ETXTBSY: some process holds the file open for writing. A program just written (an
        // upgrade's, a test's) is held so for a moment by any child forked meanwhile, until that
        // child's exec closes it; wait that out, within the limit.
        while spawned == ETXTBSY, ContinuousClock.now < deadline {
            usleep(10_000)
            spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
        }
        close(writeEnd)
        guard spawned == 0 else { return .failure(ProgramFailure("cannot run \(path): \(errnoText(spawned))")) }

        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var timedOut = false
        while output.count < 65_536 {
            let left = Seconds.milliseconds(deadline - ContinuousClock.now)
            guard left > 0 else { timedOut = true; break }
            var poller = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(clamping: left))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { timedOut = ready == 0; break }
            let count = read(readEnd, &buffer, buffer.count)
            guard count > 0 else { break }
            output.append(contentsOf: buffer[0..<count])
        }
        if timedOut { kill(pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        if timedOut { return .failure(ProgramFailure("\(path) did not answer in time")) }
        let exited = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : -1
        guard exited == 0 else { return .failure(ProgramFailure("\(path) exited with status \(exited)")) }
        let line = String(decoding: output, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        return .success(line.trimmingCharacters(in: .whitespaces))
    }

    private static func lastError() -> String { errnoText(errno) }
}

struct ProgramFailure: Error, Sendable, Hashable, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
