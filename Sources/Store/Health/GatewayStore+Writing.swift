import GRDB
import Synchronization

/// Every write goes through here: SQLite's failure is classified (``WriteFailure``), the
/// store's ``StoreHealth`` follows what happened, and a full file system gives back the
/// ``StoreReserve`` for the writes that keep a session.
extension GatewayStore {
    /// What a write is for, which decides whether it may use the reserve's room.
    enum WriteKind: Sendable {
        /// Keeps a session or the login: a finished session, an upload's marks, the tokens.
        /// On SQLITE_FULL it gives the reserve back and tries again once.
        case keeps
        /// An open session's checkpoints and plot points, every few seconds: refused before
        /// it is tried while the reserve is given back, so it cannot eat that room; the caller
        /// keeps them for later.
        case periodic
    }

    /// The store's health now.
    public var health: StoreHealth { healthState.withLock { $0.health } }

    /// Calls `observer` with the old and the new health whenever it changes (from the task that
    /// wrote): the daemon logs one line then, not one per failed write. One observer; a later
    /// call replaces it.
    public func onHealthChange(_ observer: @escaping @Sendable (_ old: StoreHealth, _ new: StoreHealth) -> Void) {
        healthState.withLock { $0.observer = observer }
    }

    /// Runs `updates` in one write transaction. A DatabaseError becomes
    /// ``StoreError/cannotWrite(_:)`` with its cause; a cancelled task's error passes as it is.
    func write<T: Sendable>(_ kind: WriteKind = .keeps, _ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        remakeReserveIfMissing()
        if kind == .periodic, let failure = healthState.withLock({ $0.health.reserve == .released ? $0.health.failure : nil }) {
            throw StoreError.cannotWrite(failure)
        }
        var failure: WriteFailure
        do {
            let value = try await onCurrent(write: true, updates)
            recordSuccess()
            return value
        } catch let error as DatabaseError {
            failure = WriteFailure(error)
        }
        if failure.cause == .full, kind == .keeps, let reserve, reserve.release() {
            record(failure, reserve: .released)
            do {
                return try await onCurrent(write: true, updates)
            } catch let error as DatabaseError {
                failure = WriteFailure(error)
            }
        }
        record(failure, reserve: nil)
        throw StoreError.cannotWrite(failure)
    }

    /// Before a write, while the reserve is out: made again once there is room for it, so the
    /// next success can say the store is writable again.
    private func remakeReserveIfMissing() {
        guard let reserve, healthState.withLock({ $0.health.reserve == .released || $0.health.reserve == .missing }) else { return }
        guard reserve.make() else { return }
        update { $0.reserve = .held }
    }

    /// A success says the store is writable again only when it proves it: while the reserve
    /// is out, the write used its room; after a full disk, only with room on the file system
    /// again (a write that found room in the WAL's old frames proves nothing). Else a full disk
    /// where some writes fit and others do not would flap between failing and recovered every
    /// few seconds.
    private func recordSuccess() {
        let room = healthState.withLock { $0.health.failure?.cause == .full } ? freeSpace() : nil
        update { health in
            guard health.failure != nil, health.reserve != .released else { return }
            if health.failure?.cause == .full, (room ?? 0) < (reserve?.bytes ?? StoreReserve.defaultBytes) { return }
            health.failure = nil
            health.failingSince = nil
        }
    }

    private func record(_ failure: WriteFailure, reserve: StoreHealth.Reserve?) {
        if failure.cause == .damaged || failure.cause == .ioError { troubleSeen.withLock { $0 = true } }
        let now = clock.now()
        update { health in
            if health.failure == nil { health.failingSince = now }
            health.failure = failure
            if let reserve { health.reserve = reserve }
        }
    }

    /// Free bytes on the state directory's file system (as the reserve sees them).
    public func freeSpace() -> Int64? {
        reserve.map { $0.freeSpace(directory) } ?? FileSystemSpace.available(at: directory)
    }

    func update(_ change: (inout StoreHealth) -> Void) {
        let (old, new, observer) = healthState.withLock { state in
            let old = state.health
            change(&state.health)
            return (old, state.health, state.observer)
        }
        if old != new { observer?(old, new) }
    }
}

/// The health and who hears of its changes, behind one lock.
struct HealthState: Sendable {
    var health: StoreHealth
    var observer: (@Sendable (StoreHealth, StoreHealth) -> Void)?
}
