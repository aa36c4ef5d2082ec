public import Glibc
import ProcessOutput

/// Where a spawned child's standard stream goes.
public enum ChildStream: Sendable {
    /// `/dev/null`.
    case null
    /// A file, created with mode 0600 (truncated, or appended to) for output; read for input.
    case file(String, append: Bool = false)
    /// A descriptor of this process (a pipe's end); it is duplicated onto the stream.
    case descriptor(Int32)
}

/// Why a child could not be started: the program and posix_spawn's error.
public struct SpawnError: Error, CustomStringConvertible {
    public let description: String
}

/// The one way the test support starts a program: posix_spawn with no signal blocked in the
/// child, its three standard streams set as given, the descriptors `passing` as its 3, 4, …
/// (a listening socket handed over as systemd does), `extraEnvironment` laid over this
/// process's environment. Returns the child's pid; ``ChildExit`` waits for it and reaps it.
///
/// Test threads run with most signals blocked, and a child inherits the mask: a dbus-daemon or
/// BlueZ peer started from one would ignore SIGTERM, and every stop would wait for the SIGKILL
/// fallback. Starting children with an empty mask makes them stop as they would under systemd.
/// Not Foundation's `Process`: its `waitUntilExit` spins a run loop that can miss the child's
/// exit, and called from a test it holds a cooperative thread meanwhile.
public func spawnChild(
    _ arguments: [String], stdin: ChildStream = .null, stdout: ChildStream = .null, stderr: ChildStream = .null,
    passing descriptors: [Int32] = [], extraEnvironment: [String: String] = [:]
) throws(SpawnError) -> pid_t {
    guard let path = arguments.first else { throw SpawnError(description: "no program given") }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for (number, stream) in [(Int32(0), stdin), (1, stdout), (2, stderr)] {
        switch stream {
        case .null:
            posix_spawn_file_actions_addopen(&actions, number, "/dev/null", number == 0 ? O_RDONLY : O_WRONLY, 0)
        case .file(let file, let append):
            let flags = number == 0 ? O_RDONLY : O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC)
            posix_spawn_file_actions_addopen(&actions, number, file, flags, 0o600)
        case .descriptor(let descriptor):
            posix_spawn_file_actions_adddup2(&actions, descriptor, number)
        }
    }
    for (index, descriptor) in descriptors.enumerated() {
        posix_spawn_file_actions_adddup2(&actions, descriptor, Int32(3 + index))
    }
    // And nothing else of this process's: a descriptor without close-on-exec (a test's
    // socketpair end) would live on in a dbus-daemon or mosquitto for the rest of the run, and
    // the test that closes it would wait for a hang-up that never comes.
    // (glibc 2.34's posix_spawn_file_actions_addclosefrom_np, which Swift's Glibc module does not
    // export: looked up by name.)
    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32
    if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
        _ = unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, Int32(3 + descriptors.count))
    }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
    let argv = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    var envp: [UnsafeMutablePointer<CChar>?] = []
    defer { envp.forEach { free($0) } }
    if !extraEnvironment.isEmpty {
        var environment: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") { environment[String(text[..<equals])] = String(text[text.index(after: equals)...]) }
            entry += 1
        }
        environment.merge(extraEnvironment) { _, new in new }
        envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    }
    // ETXTBSY: a script a test has just written is held open for writing, for a moment, by any
    // child another test forked meanwhile (until that child's exec closes it). Wait that out.
    var spawned = ETXTBSY
    for attempt in 0..<500 where spawned == ETXTBSY {
        if attempt > 0 { usleep(10_000) }
        spawned = envp.isEmpty
            ? posix_spawn(&pid, path, &actions, &attributes, argv, environ)
            : posix_spawn(&pid, path, &actions, &attributes, argv, envp)
    }
    guard spawned == 0 else { throw SpawnError(description: "cannot start \(path): \(errnoText(spawned))") }
    return pid
}
