public import FoundationEssentials

/// Everything `ftms-backend`'s flags set; `POST /_admin/reset` returns to exactly this.
public struct BackendConfiguration: Sendable {
    /// Address to listen on; loopback unless told otherwise, since the admin API has no auth.
    public var host = "127.0.0.1"
    /// 0 picks a free port (printed on stdout).
    public var port = 8080
    /// Access-token lifetime, seconds (`expires_in`; SolidFocus suggests 15–60 min).
    public var accessTokenLifetime = 1800
    /// Refresh-token lifetime, seconds, renewed by every rotation (SolidFocus: 30–90 days).
    public var refreshTokenLifetime = 60 * 86_400
    /// Seconds during which the refresh token just replaced is still accepted once more.
    public var refreshGrace = 0
    /// Most sessions one `batch_upload` may carry (SolidFocus's 20).
    public var maxBatchSize = 20
    /// Largest request body, bytes.
    public var maxBodyBytes = 16 << 20
    /// The zone whose calendar days make `workout_streak` and `last_workout_date`.
    public var timeZone = TimeZone(secondsFromGMT: 0) ?? .current
    /// JSON-lines state file, replayed at start and appended to on every change.
    public var statePath: String?
    /// Rules active from the start (and again after a reset).
    public var faults: [FaultRule] = []
    /// Serve `/_admin/*`.
    public var adminEnabled = true
    /// One line per request on the log.
    public var logRequests = true

    public init() {}
}
