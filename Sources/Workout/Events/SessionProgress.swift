/// Where an open session stands at an event: what contract §7's `session_state` carries.
public struct SessionProgress: Sendable, Hashable {
    /// The session's UUID, lowercase (the summary's `session_id`, the socket's `sessionId`).
    public var sessionID: String
    /// Wall-clock start, to the millisecond; `startEpoch` is its seconds.
    public var startedAt: UTCTime
    /// Time since the start, pauses included, at the event: `elapsedMs`. Never decreases
    /// within a session, so a reader can use it to order `session_state` messages (contract §7).
    public var elapsed: Duration
    /// Time of movement so far (the workout timer).
    public var moving: Duration
    /// The session's own distance so far, metres: what the rider rode, not the machine's
    /// lifetime counter (the summary's `total_distance` once it ends).
    public var distance: Int?
    /// The session's own energy so far, kcal (the summary's `total_energy`).
    public var energy: Int?
    /// Where the session lies on the monotonic clock, and whether ``startedAt`` is a true date:
    /// what the store keeps to date a finished session again once the wall clock is known.
    public var timing: SessionTiming?
    /// The session this one split from (``SessionEngine/splitting(from:)``): the MQTT `session`
    /// topic's and the metrics socket's `split_from`; `nil` for a session that did not split.
    public var splitFrom: String?

    public init(
        sessionID: String, startedAt: UTCTime, elapsed: Duration, moving: Duration, distance: Int? = nil, energy: Int? = nil,
        timing: SessionTiming? = nil, splitFrom: String? = nil
    ) {
        self.timing = timing
        self.splitFrom = splitFrom
        self.sessionID = sessionID
        self.startedAt = startedAt
        self.elapsed = elapsed
        self.moving = moving
        self.distance = distance
        self.energy = energy
    }

    /// contract §7 `startEpoch`: unix seconds of the start.
    public var startEpoch: Int64 { startedAt.secondsSince1970 }

    /// contract §7 `elapsedMs`.
    public var elapsedMilliseconds: Int64 { Nanoseconds.of(elapsed) / Nanoseconds.perMillisecond }

    public var movingMilliseconds: Int64 { Nanoseconds.of(moving) / Nanoseconds.perMillisecond }
}
