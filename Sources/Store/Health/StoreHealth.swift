public import Workout

/// Whether the store can write now, and why not: what `status`, `STATUS=`, Prometheus and the
/// MQTT `store` topic say, and what the daemon logs once when it changes (one line when writes
/// start failing, one when they recover, however many writes fail in between).
public struct StoreHealth: Sendable, Hashable {
    /// The ballast file's state (``StoreReserve``).
    public enum Reserve: String, Sendable, Hashable {
        /// No reserve is kept (a command's store, not the daemon's).
        case none
        case held
        /// Given back for a write that keeps a session: checkpoints wait until it is made again.
        case released
        /// Not made for want of room: tried again before each write.
        case missing
    }

    /// Why the last write failed; nil once one succeeds with the reserve in place.
    public var failure: WriteFailure?
    /// When writes started failing.
    public var failingSince: UTCTime?
    public var reserve: Reserve

    public init(failure: WriteFailure? = nil, failingSince: UTCTime? = nil, reserve: Reserve = .none) {
        self.failure = failure
        self.failingSince = failingSince
        self.reserve = reserve
    }

    public var writable: Bool { failure == nil }
}
