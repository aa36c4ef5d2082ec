import ServiceLifecycle
import Systemd

/// Tells systemd the daemon is alive, and what it is doing (contract §10).
///
/// `WATCHDOG=1` is sent only after the ``StatusProbe`` comes back, so a deadlock or a wedged
/// disk in what it touches stops the pings and systemd restarts the service. Each round
/// also refreshes `STATUS=`, which `systemctl status` shows. It is the last service in the
/// group, so it is the first to hear of a shutdown, and says `STOPPING=1` before anything
/// else starts to close.
struct WatchdogService: Service {
    let notifier: SystemdNotifier
    /// From `$WATCHDOG_USEC`: half the timeout; `nil` when systemd set no watchdog.
    let watchdog: WatchdogSettings?
    /// How often `STATUS=` is refreshed when there is no watchdog.
    let statusInterval: Duration
    let probe: StatusProbe
    let timers: any Clock<Duration>

    init(
        notifier: SystemdNotifier, watchdog: WatchdogSettings?, statusInterval: Duration = .seconds(30),
        timers: any Clock<Duration>, probe: StatusProbe
    ) {
        self.timers = timers
        self.notifier = notifier
        self.watchdog = watchdog
        self.statusInterval = statusInterval
        self.probe = probe
    }

    func run() async throws {
        let interval = watchdog?.pingInterval ?? statusInterval
        let notifier = notifier
        let pings = watchdog != nil
        let probe = probe
        let timers = timers
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let status = await probe.line()
                try? notifier.send(pings ? [.watchdog, .status(status)] : [.status(status)])
                try? await timers.sleep(for: interval)
            }
        }
        try? notifier.send([.stopping, .status("stopping: checkpointing open sessions")])
    }
}
