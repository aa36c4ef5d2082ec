package import Clocks
import FoundationEssentials
package import Logging
package import Store
package import Telemetry
import Workout

/// What the daemon says about its store, where operators look: `status` (text and JSON), the
/// watchdog's `STATUS=`, Prometheus, the MQTT `store` topic and the journal.
///
/// The journal hears one line when writes start failing and one when they recover (the
/// store's health changes, ``GatewayStore/onHealthChange(_:)``), and one when the state
/// directory's free space falls under `state.low_space_warning_mib` and one when it is back
/// above: never a line per failed write or per check. Free space is read (statvfs, cheap) each
/// time status is asked and each watchdog round.
package actor StoreWatch {
    private let store: GatewayStore
    private let keeper: FinishedSessionKeeper
    /// Bytes under which free space is warned of; 0: never.
    private let lowSpaceBytes: Int64
    private var movedAside: MovedAside?
    private let logger: Logger
    private let metrics: DaemonMetrics?
    private let publish: (@Sendable (_ json: String) -> Void)?
    private let clock: WallClock
    private var lowSpace = false
    /// The last MQTT payload's state (free space aside), to publish only changes.
    private var published: DaemonStatus.Store?

    /// - Parameter publish: hands the `store` topic's retained payload to MQTT.
    package init(
        store: GatewayStore, keeper: FinishedSessionKeeper, lowSpaceBytes: Int64, movedAside: MovedAside?, logger: Logger,
        metrics: DaemonMetrics? = nil, publish: (@Sendable (String) -> Void)? = nil, clock: WallClock = .system
    ) {
        self.clock = clock
        self.store = store
        self.keeper = keeper
        self.lowSpaceBytes = lowSpaceBytes
        self.movedAside = movedAside
        self.logger = logger
        self.metrics = metrics
        self.publish = publish
    }

    /// Listens to the store's health from now on.
    package nonisolated func start() {
        store.onHealthChange { [weak self] old, new in
            guard let self else { return }
            Task { await self.changed(from: old, to: new) }
        }
    }

    /// The daemon's last try at the sessions held in memory, as it stops: returns how many
    /// the store still refused (their checkpoints close them at the next start).
    package func lastTry() async -> Int {
        await keeper.flush()
        return await keeper.heldCount
    }

    /// Free space under which the store counts as unable to write even before a write has
    /// failed: a WAL append needs a few pages, and until one is refused a full disk would
    /// otherwise read as writable.
    static let fullBelow: Int64 = 64 << 10

    /// The store's state now.
    package func status() async -> DaemonStatus.Store {
        let health = store.health
        let free = store.freeSpace()
        let problem = health.problem ?? free.flatMap {
            $0 < Self.fullBelow ? WriteFailure(cause: .full, detail: "\($0) bytes free on the state directory's file system") : nil
        }
        var status = DaemonStatus.Store(
            writable: problem == nil, cause: problem?.cause.rawValue, error: problem.map { "\($0)" },
            failingSince: health.failingSince?.iso8601, freeBytes: free,
            lowSpace: lowSpaceBytes > 0 && (free.map { $0 < lowSpaceBytes } ?? false),
            heldSessions: await keeper.heldCount, reserve: health.reserve.rawValue)
        status.movedAside = movedAside.map {
            DaemonStatus.MovedAsideReport(path: $0.path, at: $0.at.iso8601, reason: $0.reason, keptDeviceID: $0.keptDeviceID, keptLogin: $0.keptLogin)
        }
        status.damagedFiles = DamagedFiles.list(in: store.directory).map(\.path)
        status.inMemory = health.inMemory != nil
        return status
    }

    /// The watchdog's round, with the state ``status()`` read: the gauges set, a crossing of the
    /// free-space threshold logged, and the MQTT topic refreshed when anything but the free
    /// space changed.
    package func observe(_ status: DaemonStatus.Store) {
        if status.lowSpace != lowSpace {
            lowSpace = status.lowSpace
            let free = ByteText.of(status.freeBytes ?? 0)
            if lowSpace {
                logger.warning(
                    "the state directory's file system has \(free) free, under the \(ByteText.of(lowSpaceBytes)) of state.low_space_warning_mib: make room before the store cannot write")
            } else {
                logger.notice("the state directory's file system has \(free) free again")
            }
        }
        metrics?.observeStore(
            writable: status.writable, freeBytes: status.freeBytes, heldSessions: status.heldSessions,
            damagedFiles: status.damagedFiles.count, inMemory: status.inMemory)
        var state = status
        state.freeBytes = nil
        if state != published, let publish {
            published = state
            if let json = try? DaemonControl.json(status) { publish(json) }
        }
    }

    /// A damaged file moved aside while the daemon runs (``StoreKeeper``): said from now on
    /// where the one moved at start is.
    package func movedAside(_ moved: MovedAside) async {
        movedAside = moved
        observe(await status())
    }

    private func changed(from old: StoreHealth, to new: StoreHealth) async {
        if old.reserve != .released, new.reserve == .released {
            logger.warning(
                "the state directory's file system is full: the \(ByteText.of(StoreReserve.defaultBytes)) reserve (\(StoreReserve.fileName)) was given back so that finished sessions are still stored; checkpoints wait for room")
        }
        if old.writable, let failure = new.failure {
            let remedy = failure.cause == .damaged ? "; the daemon checks the file on disk and moves it aside if it is damaged" : ""
            logger.error(
                "state database cannot be written: \(failure); a finished session it refuses is held in memory and written as soon as it can (tried every few seconds); live data goes on\(remedy)")
        } else if let failure = new.failure, old.failure?.cause != failure.cause {
            logger.error("state database still cannot be written, now: \(failure)")
        } else if !old.writable, new.writable, old.failure != nil || old.inMemory?.cause != .damaged {
            // (A damaged file replaced while running passes through memory: StoreKeeper says that.)
            let since = old.failingSince.map { " after \(max(0, (clock.now().millisecondsSince1970 - $0.millisecondsSince1970) / 1000)) s" } ?? ""
            let held = await keeper.heldCount
            logger.notice("state database writable again\(since)\(held > 0 ? "; \(held) held session(s) still to write" : "")")
        }
        observe(await status())
    }
}
