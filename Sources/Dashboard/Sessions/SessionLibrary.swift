public import Store
import Synchronization

/// Where the dashboard's session pages read finished sessions and their plot series: the
/// gateway's own database, through a read-only connection of `ftms-bridge dashboard`'s own, beside the daemon:
/// SQLite's WAL lets a reader in while the daemon writes, and a browser never holds the
/// daemon's store. The connection opens on the first request, and again on the next one if it
/// could not (the daemon has not made the database yet).
///
/// Sessions of other gateways are not here: over MQTT the dashboard sees their `session`
/// messages but not their stores (docs/dashboard.md).
public final class SessionLibrary: Sendable {
    private let opened: Mutex<GatewayStore?>
    private let open: (@Sendable () throws -> GatewayStore)?

    /// A library over a store already open.
    public init(store: GatewayStore) {
        opened = Mutex(store)
        open = nil
    }

    /// A library that opens its store (read-only: ``GatewayStore/init(readingFrom:clock:)``) on
    /// first use, and retries on each use until it can.
    public init(opening: @escaping @Sendable () throws -> GatewayStore) {
        opened = Mutex(nil)
        open = opening
    }

    /// The store, or the one-line reason there is none yet.
    func store() throws -> GatewayStore {
        if let store = opened.withLock({ $0 }) { return store }
        guard let open else { throw SessionPages.Unavailable(reason: "no store") }
        let store = try open()
        return opened.withLock { current in
            if let current { return current }
            current = store
            return store
        }
    }
}
