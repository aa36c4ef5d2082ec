public import Store
import Synchronization

/// Where the dashboard's session pages read finished sessions and their plot series: the
/// gateway's own store. In `run` it is the daemon's store, attached once it is open; for the
/// standalone `ftms-bridge dashboard` it is opened read-only from the state directory, beside
/// the running daemon (SQLite's WAL lets a reader in while the daemon writes), and opened
/// again on the next request if it could not be (the daemon has not made it yet).
///
/// Sessions of other gateways are not here: over MQTT the dashboard sees their `session`
/// messages but not their stores (docs/dashboard.md).
public final class SessionLibrary: Sendable {
    private let opened: Mutex<GatewayStore?>
    private let open: (@Sendable () throws -> GatewayStore)?

    /// A library whose store comes later, with ``attach(_:)``.
    public init() {
        opened = Mutex(nil)
        open = nil
    }

    /// A library over a store already open.
    public init(store: GatewayStore) {
        opened = Mutex(store)
        open = nil
    }

    /// A library that opens its store (read-only) on first use, and retries on each use until
    /// it can.
    public init(opening: @escaping @Sendable () throws -> GatewayStore) {
        opened = Mutex(nil)
        open = opening
    }

    public func attach(_ store: GatewayStore) {
        opened.withLock { $0 = store }
    }

    /// The store, or the one-line reason there is none yet.
    func store() throws -> GatewayStore {
        if let store = opened.withLock({ $0 }) { return store }
        guard let open else { throw SessionPages.Unavailable(reason: "the gateway's store is not open yet") }
        let store = try open()
        return opened.withLock { current in
            if let current { return current }
            current = store
            return store
        }
    }
}
