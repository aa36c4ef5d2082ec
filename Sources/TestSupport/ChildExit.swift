public import Glibc
import OwnThread
import Foundation

/// How test support waits for the children it starts (dbus-daemon, ftms-sim, mosquitto, the
/// reference backend, a sqlite3): one reaper, so every one of them is collected the same way,
/// a stuck child is killed at its deadline rather than hanging a suite, and an exit status
/// reads as a shell shows it.
///
/// No wait here holds a thread of Swift's cooperative pool: on a 2-core box the pool has two
/// threads, and a test holding one in `waitpid` or between polls stalls every other suite, the
/// very processes it waits for included. The `async` waits block a thread of their own
/// (``onOwnThread(_:)``); the `…InBackground` stops, for a `defer` or a `deinit`, return at once
/// and leave the wait to such a thread.
public enum ChildExit {
    /// waitpid's raw status as a shell shows it: the exit code, or 128 + the signal.
    public static func status(_ raw: Int32) -> Int32 {
        raw & 0x7F == 0 ? (raw >> 8) & 0xFF : 128 + raw & 0x7F
    }

    /// The child's status if it has exited (it is reaped then), nil while it runs. Never blocks.
    public static func poll(_ pid: pid_t) -> Int32? {
        var raw: Int32 = 0
        return waitpid(pid, &raw, WNOHANG) == pid ? status(raw) : nil
    }

    /// Waits for the child to exit; its status. Nil if it still runs after `limit`: then it
    /// is killed and reaped (status 137 is returned instead) when `killAtEnd`, else left running.
    public static func exit(of pid: pid_t, within limit: Duration, killAtEnd: Bool = true) async -> Int32? {
        await onOwnThread { waitBlocking(pid, within: limit, killAtEnd: killAtEnd) }
    }

    /// SIGKILL, then reaped: a crash, or the end of a child that would not stop.
    @discardableResult
    public static func kill(_ pid: pid_t) async -> Int32 {
        await onOwnThread { killBlocking(pid) }
    }

    /// `signal` (SIGTERM, as systemd stops a service), and SIGKILL if the child has not exited
    /// within `grace`; reaped either way. Its exit status.
    @discardableResult
    public static func terminate(_ pid: pid_t, signal: Int32 = SIGTERM, grace: Duration) async -> Int32 {
        await onOwnThread { terminateBlocking(pid, signal: signal, grace: grace) }
    }

    /// ``terminate(_:signal:grace:)`` for a stop that must not wait (a `defer`, a `deinit`):
    /// the signal goes now; the wait, the SIGKILL at `grace`, the reaping and then `cleanup`
    /// happen on a thread of their own.
    public static func terminateInBackground(_ pid: pid_t, signal: Int32 = SIGTERM, grace: Duration, then cleanup: @escaping @Sendable () -> Void = {}) {
        Glibc.kill(pid, signal)
        let thread = Thread {
            terminateBlocking(pid, signal: signal, grace: grace)
            cleanup()
        }
        thread.stackSize = 1 << 18
        thread.start()
    }

    /// SIGKILL now, reaped on a thread of its own: a crash, from a `defer` or a `deinit`.
    public static func killInBackground(_ pid: pid_t, then cleanup: @escaping @Sendable () -> Void = {}) {
        terminateInBackground(pid, signal: SIGKILL, grace: .zero, then: cleanup)
    }

    /// Blocks until the child exits: only ever on a thread of its own (``runProgram(_:)``'s).
    static func reap(_ pid: pid_t) -> Int32 {
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 {
            guard errno == EINTR else { return -1 }
        }
        return status(raw)
    }

    private static func waitBlocking(_ pid: pid_t, within limit: Duration, killAtEnd: Bool) -> Int32? {
        let deadline = ContinuousClock.now + limit
        while true {
            if let exited = poll(pid) { return exited }
            guard ContinuousClock.now < deadline else { return killAtEnd ? killBlocking(pid) : nil }
            usleep(2_000)
        }
    }

    @discardableResult
    private static func killBlocking(_ pid: pid_t) -> Int32 {
        Glibc.kill(pid, SIGKILL)
        return reap(pid)
    }

    @discardableResult
    private static func terminateBlocking(_ pid: pid_t, signal: Int32, grace: Duration) -> Int32 {
        Glibc.kill(pid, signal)
        return waitBlocking(pid, within: grace, killAtEnd: false) ?? killBlocking(pid)
    }
}
