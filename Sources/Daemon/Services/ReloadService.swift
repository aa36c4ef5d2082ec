import ServiceLifecycle
import UnixSignals

/// SIGHUP re-reads the config (`systemctl reload`, the unit's `ExecReload=`). ``ConfigReload``
/// applies what can change live and reports the rest; a bad file is one logged line and the
/// daemon keeps the config it runs on.
struct ReloadService: Service {
    let reload: ConfigReload

    func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        for await _ in signals.cancelOnGracefulShutdown() {
            await reload.run()
        }
    }
}
