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
        if kind == .periodic, case .keepingOnly(let failure) = health.writes {
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
            let now = clock.now()
            update { $0.reserveReleased(for: failure, at: now) }
            do {
                let value = try await onCurrent(write: true, updates)
                recordSuccess()
                return value
            } catch let error as DatabaseError {
                failure = WriteFailure(error)
            }
        }
        record(failure)
        throw StoreError.cannotWrite(failure)
    }

    /// Before a write, while the reserve is out: made again once there is room for it, so the
    /// next success can say the store is writable again.
    private func remakeReserveIfMissing() {
        guard let reserve, health.wantsReserve, reserve.make() else { return }
        update { $0.reserveMade() }
    }

    private func recordSuccess() {
        let room = health.failure?.cause == .full ? freeSpace() : nil
        let reserveBytes = reserve?.bytes ?? StoreReserve.defaultBytes
        update { $0.writeSucceeded(room: room, reserveBytes: reserveBytes) }
    }

    private func record(_ failure: WriteFailure) {
        if failure.cause == .damaged || failure.cause == .ioError { troubleSeen.withLock { $0 = true } }
        let now = clock.now()
        update { $0.writeFailed(failure, at: now) }
    }

    /// Free bytes on the state directory's file system (as the reserve sees them).
    public func freeSpace() -> Int64? {
        reserve.map { $0.freeSpace(directory) } ?? FileSystemSpace.available(at: directory)
    }

    /// Applies one transition of the health, and tells the observer if it changed anything.
    /// Returns what the store may write from then on.
    @discardableResult
    func update(_ transition: (inout StoreHealth) -> StoreHealth.Writes) -> StoreHealth.Writes {
        let (old, new, writes, observer) = healthState.withLock { state in
            let old = state.health
            let writes = transition(&state.health)
            return (old, state.health, writes, state.observer)
        }
        if old != new { observer?(old, new) }
        return writes
    }
}

/// The health and who hears of its changes, behind one lock.
struct HealthState: Sendable {
    var health: StoreHealth
    var observer: (@Sendable (StoreHealth, StoreHealth) -> Void)?
}
