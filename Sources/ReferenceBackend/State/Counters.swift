/// What the backend has been asked, for `GET /_admin/counters`.
///
/// The crash and concurrency tests read these: `refreshes` per device shows a single refresh
/// per expiry however many requests waited on it, and `reuse_detected` shows a client that
/// presented a refresh token twice.
struct Counters: Sendable, Codable {
    struct RouteTally: Sendable, Codable {
        var calls = 0
        /// Status code (or `dropped`) → calls.
        var statuses: [String: Int] = [:]
    }

    var routes: [String: RouteTally] = [:]
    /// Successful refreshes per device.
    var refreshes: [String: Int] = [:]
    /// Refused refreshes per device (as the refresh token or body named it).
    var refreshFailures: [String: Int] = [:]
    /// Successful logins per device.
    var logins: [String: Int] = [:]
    /// Refresh tokens presented after they had been rotated (outside the grace window).
    var reuseDetected = 0
    /// Fault kind → times fired.
    var faults: [String: Int] = [:]
    /// Sessions accepted, stored ones replaced by a summary that ended later, duplicates seen,
    /// sessions refused.
    var sessionsAccepted = 0
    var sessionsReplaced = 0
    var duplicatesReceived = 0
    var sessionsRefused = 0

    enum CodingKeys: String, CodingKey {
        case routes, refreshes, logins, faults
        case refreshFailures = "refresh_failures"
        case reuseDetected = "reuse_detected"
        case sessionsAccepted = "sessions_accepted"
        case sessionsReplaced = "sessions_replaced"
        case duplicatesReceived = "duplicates_received"
        case sessionsRefused = "sessions_refused"
    }

    mutating func record(_ route: RouteName, outcome: String) {
        routes[route.rawValue, default: RouteTally()].calls += 1
        routes[route.rawValue, default: RouteTally()].statuses[outcome, default: 0] += 1
    }
}
