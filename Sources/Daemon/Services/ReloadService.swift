public import ServiceLifecycle
import UnixSignals

/// SIGHUP re-reads the config (`systemctl reload`, the unit's `ExecReload=`). `reload`
/// applies what can change live and reports the rest; a bad file is one logged line and the
/// daemon keeps the config it runs on.
public struct ReloadService: Service {
    public let reload: @Sendable () async -> Void

    public init(reload: @escaping @Sendable () async -> Void) {
        self.reload = reload
    }

    public func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        let reload = reload
        for await _ in signals.cancelOnGracefulShutdown() {
            await reload()
        }
    }
}
