/// What `ftms-bridge status` shows of a running daemon, and the control socket's `status`
/// answer. Snake-case JSON like every other name the product publishes.
public struct DaemonStatus: Sendable, Codable, Equatable {
    public struct Bus: Sendable, Codable, Equatable {
        public var connected: Bool
        public var connections: Int
        public var error: String?
    }

    public struct Queue: Sendable, Codable, Equatable {
        public var pending: Int
        public var uploaded: Int
        public var dead: Int
        public var oldestPendingAgeSeconds: Int?

        enum CodingKeys: String, CodingKey {
            case pending, uploaded, dead
            case oldestPendingAgeSeconds = "oldest_pending_age_s"
        }
    }

    public struct Account: Sendable, Codable, Equatable {
        public var loggedIn: Bool
        public var loginRequiredReason: String?

        enum CodingKeys: String, CodingKey {
            case loggedIn = "logged_in"
            case loginRequiredReason = "login_required_reason"
        }
    }

    public struct LastUpload: Sendable, Codable, Equatable {
        public var at: String
        public var result: String
        public var succeeded: Bool
    }

    /// The MQTT broker connection, when `[mqtt]` is on: an operator's one place to see that the
    /// fleet's broker hears this gateway, and why not (the same figures Prometheus has).
    public struct Broker: Sendable, Codable, Equatable {
        /// Scheme, host and port only: the URL never carries the login.
        public var url: String
        /// `connecting`, `connected`, `waiting` (between attempts) or `stopped`.
        public var state: String
        /// The latest failure, kept after a later success.
        public var lastError: String?
        public var connections: UInt64
        public var queued: Int
        public var delivered: UInt64
        public var dropped: UInt64

        enum CodingKeys: String, CodingKey {
            case url, state, connections, queued, delivered, dropped
            case lastError = "last_error"
        }
    }

    public var version: String
    public var deviceID: String
    public var uptimeSeconds: Int
    public var backend: String?
    public var bus: Bus
    public var machines: [MachineStatus]
    public var queue: Queue
    public var account: Account
    public var lastUpload: LastUpload?
    public var metricsReaders: Int
    public var mqtt: Broker?

    enum CodingKeys: String, CodingKey {
        case version
        case deviceID = "device_id"
        case uptimeSeconds = "uptime_s"
        case backend, bus, machines, queue, account
        case lastUpload = "last_upload"
        case metricsReaders = "metrics_readers"
        case mqtt
    }
}
