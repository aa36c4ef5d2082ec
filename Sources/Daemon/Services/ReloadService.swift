import ServiceLifecycle
import UnixSignals

/// SIGHUP re-reads the config (`systemctl reload`, the unit's `ExecReload=`). `reload`
/// applies what can change live and reports the rest; a bad file is one logged line and the
/// daemon keeps the config it runs on.
package struct ReloadService: Service {
    package let reload: @Sendable () async -> Void

    package init(reload: @escaping @Sendable () async -> Void) {
        self.reload = reload
    }

    package func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        let reload = reload
        for await _ in signals.cancelOnGracefulShutdown() {
            await reload()
        }
    }
}
