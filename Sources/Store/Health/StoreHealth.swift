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
    /// Why the store runs in memory (``StoreBacking``): the file could not be opened for
    /// writing. Sessions are kept, and uploaded, from memory, and written to the file as soon
    /// as it can be. Writes succeed meanwhile, so ``failure`` alone would call the store sound.
    public var inMemory: WriteFailure?

    public init(failure: WriteFailure? = nil, failingSince: UTCTime? = nil, reserve: Reserve = .none, inMemory: WriteFailure? = nil) {
        self.failure = failure
        self.failingSince = failingSince
        self.reserve = reserve
        self.inMemory = inMemory
    }

    /// Whether what the store takes is on the disk: no write failing, and the file in use.
    public var writable: Bool { failure == nil && inMemory == nil }

    /// What keeps the store from the disk now: the failing write first, else why it is in memory.
    public var problem: WriteFailure? { failure ?? inMemory }
}
