public import Glibc

/// posix_spawn with no signal blocked in the child (public: MQTTTesting starts mosquitto with it).
///
/// Test threads run with most signals blocked, and a child inherits the mask: a dbus-daemon or
/// BlueZ peer started from one would ignore SIGTERM, and every stop would wait for the SIGKILL
/// fallback. Starting children with an empty mask makes them stop as they would under systemd.
public func spawnWithSignalsUnblocked(
    _ pid: inout pid_t, _ path: String, _ actions: inout posix_spawn_file_actions_t,
    _ argv: [UnsafeMutablePointer<CChar>?], _ envp: UnsafePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
    return posix_spawn(&pid, path, &actions, &attributes, argv, envp)
}

/// `arguments` (the program's path first) with stdin, stdout and stderr on /dev/null, started as
/// ``spawnWithSignalsUnblocked`` starts it: for helpers whose output nobody reads (mosquitto
/// logs to its own file, openssl's chatter). posix_spawn's result, 0 on success.
public func spawnSilently(_ arguments: [String], pid: inout pid_t) -> Int32 {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    return spawnWithSignalsUnblocked(&pid, arguments[0], &actions, argv, environ)
}
