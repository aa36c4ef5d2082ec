public import Workout

/// A session as a row: the figures the stats are summed from, and the JSON object exactly as
/// it is uploaded (or as the backend sent it, for downloaded sessions).
public struct SessionRecord: Sendable, Hashable {
    public var sessionID: String
    public var startedAt: UTCTime
    public var endedAt: UTCTime
    /// Seconds of movement.
    public var duration: Int
    /// kcal.
    public var totalEnergy: Int
    /// Metres.
    public var totalDistance: Int
    /// One JSON object, no newline: the element of `batch_upload`'s `sessions` array.
    public var json: String

    public init(
        sessionID: String, startedAt: UTCTime, endedAt: UTCTime, duration: Int, totalEnergy: Int, totalDistance: Int,
        json: String
    ) {
        self.sessionID = sessionID
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.duration = duration
        self.totalEnergy = totalEnergy
        self.totalDistance = totalDistance
        self.json = json
    }

    /// A finished session from the engine, with the JSON it is uploaded as.
    public init(_ summary: SessionSummary) {
        self.init(
            sessionID: summary.sessionID, startedAt: summary.startedAt, endedAt: summary.endedAt,
            duration: summary.duration, totalEnergy: summary.totalEnergy, totalDistance: summary.totalDistance,
            json: summary.jsonString)
    }
}
