/// What `ftms-bridge status` shows of a running daemon, and the control socket's `status`
/// answer. Snake-case JSON like every other name the product publishes.
package struct DaemonStatus: Sendable, Codable, Equatable {
    package struct Bus: Sendable, Codable, Equatable {
        package var connected: Bool
        package var connections: Int
        package var error: String?
    }

    package struct Queue: Sendable, Codable, Equatable {
        package var pending: Int
        package var uploaded: Int
        package var dead: Int
        package var oldestPendingAgeSeconds: Int?
        /// The store could not be read just now (a damaged database before it is moved aside):
        /// why. The counts are then the last good reading (zero if there was none).
        package var unreadable: String? = nil

        enum CodingKeys: String, CodingKey {
            case pending, uploaded, dead, unreadable
            case oldestPendingAgeSeconds = "oldest_pending_age_s"
        }
    }

    package struct Account: Sendable, Codable, Equatable {
        package var loggedIn: Bool
        package var loginRequiredReason: String?

        enum CodingKeys: String, CodingKey {
            case loggedIn = "logged_in"
            case loginRequiredReason = "login_required_reason"
        }
    }

    package struct LastUpload: Sendable, Codable, Equatable {
        package var at: String
        package var result: String
        package var succeeded: Bool
    }

    /// The MQTT broker connection, when `[mqtt]` is on: an operator's one place to see that the
    /// fleet's broker hears this gateway, and why not (the same figures Prometheus has).
    package struct Broker: Sendable, Codable, Equatable {
        /// Scheme, host and port only: the URL never carries the login.
        package var url: String
        /// `connecting`, `connected`, `waiting` (between attempts) or `stopped`.
        package var state: String
        /// The latest failure, kept after a later success.
        package var lastError: String?
        package var connections: UInt64
        package var queued: Int
        package var delivered: UInt64
        package var dropped: UInt64

        enum CodingKeys: String, CodingKey {
            case url, state, connections, queued, delivered, dropped
            case lastError = "last_error"
        }
    }

    /// The state database: whether it can write, why not, the room left, what waits in memory
    /// (docs/sync.md, "When the store cannot write").
    package struct Store: Sendable, Codable, Equatable {
        package var writable: Bool
        /// `disk_full`, `read_only`, `no_access`, `io_error`, `damaged`, `busy`, `other`.
        package var cause: String?
        package var error: String?
        package var failingSince: String?
        /// Free bytes on the state directory's file system.
        package var freeBytes: Int64?
        /// Free space is under `state.low_space_warning_mib`.
        package var lowSpace: Bool
        /// Finished sessions the store refused, held in memory until it takes them.
        package var heldSessions: Int
        /// The full-disk reserve: `held`, `released`, `missing` or `none`.
        package var reserve: String
        /// A damaged database this run moved aside at start.
        package var movedAside: MovedAsideReport?
        /// Damaged databases in the state directory not salvaged yet.
        package var damagedFiles: [String] = []
        /// The store runs in memory: its file cannot be written (``cause``, ``error`` say why).
        /// Sessions are kept and uploaded from memory, and written to the file when it can be;
        /// a stop meanwhile loses what only memory holds.
        package var inMemory = false

        enum CodingKeys: String, CodingKey {
            case writable, cause, error, reserve
            case failingSince = "failing_since"
            case freeBytes = "free_bytes"
            case lowSpace = "low_space"
            case heldSessions = "held_sessions"
            case movedAside = "moved_aside"
            case damagedFiles = "damaged_files"
            case inMemory = "in_memory"
        }
    }

    package struct MovedAsideReport: Sendable, Codable, Equatable {
        package var path: String
        package var at: String
        package var reason: String
        package var keptDeviceID: Bool
        package var keptLogin: Bool

        enum CodingKeys: String, CodingKey {
            case path, at, reason
            case keptDeviceID = "kept_device_id"
            case keptLogin = "kept_login"
        }
    }

    /// The wall clock as the daemon judges it (contract §5), and the finished sessions whose
    /// dates wait for it.
    package struct WallClockState: Sendable, Codable, Equatable {
        /// Whether the system clock itself is true.
        package var trusted: Bool
        /// What dates sessions now (contract §5): `synchronised`, `stepped`, `earlier` (the
        /// system clock), `backend` (the backend's `Date`), or absent: nothing true is known.
        package var datedBy: String?
        /// Why, or why not, in words.
        package var state: String
        /// What it reads.
        package var now: String
        /// No true date is before this (the build's date, the latest truly dated session).
        package var floor: String?
        /// Finished sessions not uploaded until they are dated.
        package var sessionsWaiting: Int
        /// Finished sessions the wait ran out for, dated as well as could be.
        package var sessionsEstimated: Int
        /// `[backend] clock_sync_wait`: how long after boot sessions wait for a true clock.
        package var waitSeconds: Int
        /// How much of that is left (0 once it is over).
        package var waitLeftSeconds: Int

        enum CodingKeys: String, CodingKey {
            case trusted, state, now, floor
            case datedBy = "dated_by"
            case sessionsWaiting = "sessions_waiting"
            case sessionsEstimated = "sessions_estimated"
            case waitSeconds = "wait_s"
            case waitLeftSeconds = "wait_left_s"
        }
    }

    package var version: String
    package var deviceID: String
    package var uptimeSeconds: Int
    package var backend: String?
    package var bus: Bus
    package var machines: [MachineStatus]
    package var queue: Queue
    package var account: Account
    package var lastUpload: LastUpload?
    package var metricsReaders: Int
    package var mqtt: Broker?
    package var store: Store?
    package var clock: WallClockState?
    /// The gym's floor (`[fleet]` on): absent when this gateway is an island.
    package var floor: FloorReport? = nil

    enum CodingKeys: String, CodingKey {
        case version
        case deviceID = "device_id"
        case uptimeSeconds = "uptime_s"
        case backend, bus, machines, queue, account
        case lastUpload = "last_upload"
        case metricsReaders = "metrics_readers"
        case mqtt, store, clock, floor
    }
}
