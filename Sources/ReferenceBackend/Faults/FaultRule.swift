/// One fault-injection switch: what goes wrong, on which routes, and how often.
///
/// A rule counts the events it matches (calls to its routes; for `invalid`, new valid
/// sessions) and fires on some of them: after skipping the first `after`, on every `every`-th
/// one (every one when unset), at most `next` times (no limit when unset). The same rule is
/// written on the command line (`--fault 5xx:route=batch_upload,after=1,next=1`) or posted as
/// JSON to `/_admin/faults`; docs/backend-api.md lists the kinds and keys.
public struct FaultRule: Sendable, Hashable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// Answer with a 5xx before doing anything: nothing is committed.
        case serverError = "5xx"
        /// Answer 429 with `Retry-After` before doing anything.
        case rateLimit = "429"
        /// Do the work and commit it, then never answer: close the connection (`drop`) or
        /// answer only after `seconds` (`sleep`), past the client's timeout.
        case timeout
        /// Refuse a session that would have been accepted, in `failed_sessions`.
        case invalid
        /// Wait `ms` before handling the call.
        case latency
    }

    public enum TimeoutMode: String, Sendable, Codable {
        case drop
        case sleep
    }

    public var kind: Kind
    public var every: Int?
    public var next: Int?
    public var after: Int = 0
    /// `nil`: every API route (`invalid`: the session-receiving ones).
    public var routes: Set<RouteName>?
    /// `5xx`: the status (500–599, default 503).
    public var status: Int = 503
    /// `429` (default 1) and `5xx` (none unless set): the `Retry-After` seconds.
    public var retryAfter: Int?
    /// `timeout`: how (default `drop`) and, for `sleep`, how long (default 30 s).
    public var mode: TimeoutMode = .drop
    public var seconds: Double = 30
    /// `latency`: milliseconds.
    public var milliseconds: Int = 0
    /// `invalid`: the `failed_sessions[].error` code (default `validation_error`).
    public var error: String = "validation_error"

    public init(kind: Kind) {
        self.kind = kind
    }

    func applies(to route: RouteName) -> Bool {
        if let routes { return routes.contains(route) }
        return kind != .invalid || RouteName.receivingSessions.contains(route)
    }

    /// Checks ranges, so a rule from either door (flag or admin JSON) is sound.
    func validated() throws(FaultRule.Problem) -> FaultRule {
        if let every, every < 1 { throw Problem("every must be ≥ 1") }
        if let next, next < 1 { throw Problem("next must be ≥ 1") }
        guard after >= 0 else { throw Problem("after must be ≥ 0") }
        guard (500...599).contains(status) else { throw Problem("status must be 500–599") }
        if let retryAfter, retryAfter < 0 { throw Problem("retry-after must be ≥ 0") }
        guard seconds > 0, seconds <= 3600 else { throw Problem("seconds must be in (0, 3600]") }
        guard (0...60_000).contains(milliseconds) else { throw Problem("ms must be 0–60000") }
        guard !error.isEmpty else { throw Problem("error must not be empty") }
        if routes?.isEmpty == true { throw Problem("route list is empty") }
        return self
    }

    public struct Problem: Error, Equatable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
