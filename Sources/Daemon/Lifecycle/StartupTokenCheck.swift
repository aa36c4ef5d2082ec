import Clocks
import Logging
import Telemetry
import Upload

/// SolidFocus Flow 1 step 3: the stored tokens are checked, and refreshed when due, before
/// machines are connected. It is bounded: a backend that does not answer within `timeout` is
/// left to the uploader's retries, and the machines come first.
struct StartupTokenCheck: Sendable {
    let sync: SyncService
    let timeout: Duration
    let timers: any Clock<Duration>
    let metrics: DaemonMetrics
    let logger: Logger

    func run() async {
        let authority = sync.authority
        let check = await withTimeout(timeout, on: timers) { await authority.checkAtStartup() }
        switch check {
        case .valid(let refreshed)?:
            if refreshed { metrics.tokenRefreshed(result: "success") }
            logger.info(refreshed ? "tokens refreshed" : "tokens valid")
        case .loginRequired(let reason)?:
            metrics.tokenRefreshed(result: "login_required")
            logger.warning("login required (\(reason)): run `ftms-bridge login`; sessions keep queueing")
        case .unreachable(let reason)?:
            logger.warning("backend unreachable at start-up (\(reason)); uploads will retry")
        case nil:
            logger.warning("token check took longer than \(timeout); machines first, uploads will retry")
        }
    }
}
