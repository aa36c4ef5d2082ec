/// A finished session, in SolidFocus Flow 4's names (contract §5): what is stored, uploaded and
/// printed by `replay --json`.
///
/// Totals and times are whole numbers (kcal, metres, seconds) because the backend sums them
/// into the stats of SolidFocus, and the gateway's stats must equal the server's sum of exactly
/// what was uploaded. `ended_at − started_at == detail.elapsed` and
/// `duration + detail.paused == detail.elapsed` hold exactly.
public struct SessionSummary: Sendable, Hashable {
    /// UUID made on the gateway: the upload's idempotency key.
    public var sessionID: String
    /// Wall-clock start, whole seconds (`started_at`).
    public var startedAt: UTCTime
    /// `started_at` + `detail.elapsed`: the end of the last movement (`ended_at`).
    public var endedAt: UTCTime
    /// Seconds of movement (`duration`), pauses excluded.
    public var duration: Int
    /// Kilocalories (`total_energy`).
    public var totalEnergy: Int
    /// Metres (`total_distance`).
    public var totalDistance: Int
    public var detail: SessionDetail
    /// Base64 of the session's capture (`raw`), attached by the caller when wanted.
    public var raw: String?

    public init(
        sessionID: String, startedAt: UTCTime, endedAt: UTCTime, duration: Int, totalEnergy: Int,
        totalDistance: Int, detail: SessionDetail, raw: String? = nil
    ) {
        self.sessionID = sessionID
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.duration = duration
        self.totalEnergy = totalEnergy
        self.totalDistance = totalDistance
        self.detail = detail
        self.raw = raw
    }
}
