public import Workout

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

    enum CodingKeys: String, CodingKey {
        case version
        case deviceID = "device_id"
        case uptimeSeconds = "uptime_s"
        case backend, bus, machines, queue, account
        case lastUpload = "last_upload"
        case metricsReaders = "metrics_readers"
    }
}
