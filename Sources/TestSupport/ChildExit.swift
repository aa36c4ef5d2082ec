public import Glibc

/// How test support waits for the children it starts (dbus-daemon, ftms-sim, mosquitto, the
/// reference backend, a sqlite3): one reaper, so every one of them is collected the same way,
/// a stuck child is killed at its deadline rather than hanging a suite, and an exit status
/// reads as a shell shows it.
public enum ChildExit {
    /// waitpid's raw status as a shell shows it: the exit code, or 128 + the signal.
    public static func status(_ raw: Int32) -> Int32 {
        raw & 0x7F == 0 ? (raw >> 8) & 0xFF : 128 + raw & 0x7F
    }

    /// The child's status if it has exited (it is reaped then), nil while it runs.
    public static func poll(_ pid: pid_t) -> Int32? {
        var raw: Int32 = 0
        return waitpid(pid, &raw, WNOHANG) == pid ? status(raw) : nil
    }

    /// Blocks until the child exits; its status.
    @discardableResult
    public static func reap(_ pid: pid_t) -> Int32 {
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 {
            guard errno == EINTR else { return -1 }
        }
        return status(raw)
    }

    /// Waits at most `limit` for the child to exit. At the limit it is killed and reaped
    /// (status 137) when `killAtEnd`, else left running (nil).
    @discardableResult
    public static func wait(_ pid: pid_t, within limit: Duration, killAtEnd: Bool = true) -> Int32? {
        let deadline = ContinuousClock.now + limit
        while true {
            if let exited = poll(pid) { return exited }
            guard ContinuousClock.now < deadline else { return killAtEnd ? kill(pid) : nil }
            usleep(2_000)
        }
    }

    /// SIGKILL, then reaped: a crash, or the end of a child that would not stop.
    @discardableResult
    public static func kill(_ pid: pid_t) -> Int32 {
        Glibc.kill(pid, SIGKILL)
        return reap(pid)
    }

    /// `signal` (SIGTERM, as systemd stops a service), and SIGKILL if the child has not exited
    /// within `grace`; reaped either way.
    @discardableResult
    public static func terminate(_ pid: pid_t, signal: Int32 = SIGTERM, grace: Duration) -> Int32 {
        Glibc.kill(pid, signal)
        return wait(pid, within: grace) ?? kill(pid)
    }
}
