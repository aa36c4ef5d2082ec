/// The daemon's side of systemd's service protocol: sd_notify and the watchdog (contract §10,
/// docs/systemd.md). The directories systemd makes for the unit are paths like the config's,
/// so DaemonConfig's `GatewayPaths` reads them, in the one order every path is resolved in.
///
/// sd_notify is written here by hand rather than bound from libsystemd. libsystemd is the
/// only implementation there is, and what it does for a service is one `sendmsg` of a few
/// `KEY=value` lines to the datagram socket named in `$NOTIFY_SOCKET`; that is not worth a C
/// dependency, a system library in every build and a link step in every test. Everything here
/// reads an injected environment dictionary, never the process's, so tests stand in for
/// systemd with a real socket in a temporary directory.
///
/// These are the variables systemd hands the service.
package enum SystemdVariable {
    /// Where notifications go: a socket path, or `@name` for the abstract namespace.
    package static let notifySocket = "NOTIFY_SOCKET"
    /// The watchdog timeout in microseconds, when `WatchdogSec=` is set.
    package static let watchdogMicroseconds = "WATCHDOG_USEC"
    /// The process the watchdog settings are meant for.
    package static let watchdogPID = "WATCHDOG_PID"

    /// What a caller removes from the environment of a child it starts. Left in place, a child
    /// could send READY=1 or WATCHDOG=1 in the daemon's name (with `NotifyAccess=main` systemd
    /// drops them, but the child would still believe it is being supervised). This module
    /// never touches the process environment itself: spawning children is the caller's
    /// business, and so is what they inherit.
    package static let inheritedBySupervisedChildren = [notifySocket, watchdogMicroseconds, watchdogPID]
}
