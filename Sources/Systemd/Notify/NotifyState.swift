/// One line of an sd_notify message (sd_notify(3), systemd 252).
///
/// Several states may travel in one datagram, and systemd applies them in order, so
/// `[.status("ready"), .ready]` shows the status before the unit turns active.
package enum NotifyState: Sendable, Equatable {
    /// `READY=1`: start-up is done (store open, sockets bound); systemd starts what follows.
    case ready
    /// `RELOADING=1` plus `MONOTONIC_USEC=`: the config is being re-read; send ``ready`` when
    /// done. systemd 253 and later want the timestamp to tell this reload from a stale one; 252
    /// ignores the unknown key.
    case reloading
    /// `STOPPING=1`: shutdown has begun; systemd stops expecting watchdog pings.
    case stopping
    /// `STATUS=`: one line for `systemctl status`. Line breaks and control characters become
    /// spaces, and an over-long text is cut (see ``NotifyMessage``).
    case status(String)
    /// `WATCHDOG=1`: the loops made progress since the last ping.
    case watchdog
    /// `WATCHDOG=trigger`: an invariant broke; have systemd apply the watchdog action now.
    case watchdogTrigger
    /// `WATCHDOG_USEC=`: change the watchdog timeout while running.
    case watchdogTimeout(Duration)
    /// `MAINPID=`: another process became the main one.
    case mainPID(Int32)
    /// `EXTEND_TIMEOUT_USEC=`: more time for the current start or stop (a long migration, a
    /// large flush), counted from now.
    case extendTimeout(Duration)
    /// `ERRNO=`: why the service failed, as an errno value.
    case errno(Int32)
}
