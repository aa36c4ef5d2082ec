public import JSON
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
    /// Where a session recorded here lay on its boot's monotonic clock, and whether its dates
    /// are true; `nil` for sessions whose dates are true by origin (the backend's, a capture's).
    public var timing: SessionTiming?

    /// A finished session from the engine, with the JSON it is uploaded as.
    public init(_ summary: SessionSummary) {
        sessionID = summary.sessionID
        startedAt = summary.startedAt
        endedAt = summary.endedAt
        duration = summary.duration
        totalEnergy = summary.totalEnergy
        totalDistance = summary.totalDistance
        json = summary.jsonString
    }

    /// A session as the backend holds it (`GET /sessions`), or `nil` when the object lacks a
    /// field the stats are summed from. Whole numbers may arrive as `12.0`; the id is kept in
    /// lower case, as the gateway makes it, so that a session is one row however it came.
    public init?(uploaded element: JSONValue) {
        guard element.isObject,
              let id = element["session_id"]?.string,
              let started = element["started_at"]?.string.flatMap({ UTCTime(iso8601: $0) }),
              let ended = element["ended_at"]?.string.flatMap({ UTCTime(iso8601: $0) }),
              let duration = element["duration"]?.integer,
              let energy = element["total_energy"]?.integer,
              let distance = element["total_distance"]?.integer
        else { return nil }
        sessionID = id.lowercased()
        startedAt = started
        endedAt = ended
        self.duration = Int(duration)
        totalEnergy = Int(energy)
        totalDistance = Int(distance)
        json = JSONWriter.text(element)
    }
}
