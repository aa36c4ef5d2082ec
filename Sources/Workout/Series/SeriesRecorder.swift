public import FTMS

/// Thins a session's samples to at most one ``SeriesPoint`` per second, so a three-hour ride
/// is at most 10,800 points whatever the machine's notification rate.
///
/// Cheap on the notification path: a sample within the second already taken costs one
/// integer comparison (``wants(_:)``); only the first sample of a new second asks the engine
/// for the session's progress. The time axis is the session's elapsed time, which a session
/// restored after a restart carries on, so a restored session's points follow its earlier ones.
public struct SeriesRecorder: Sendable {
    private var lastSecond: Int64 = .min
    /// The session and its elapsed second of the last point: two monotonic seconds can fall in
    /// one elapsed second, which keeps one point.
    private var lastPoint: (session: String, second: Int64)?

    public init() {}

    /// Whether a sample at `time` would start a new second.
    public func wants(_ time: Timestamp) -> Bool {
        time.monotonic.components.seconds != lastSecond
    }

    /// The point for `values` at `time` in the open session `progress`; `nil` (and the
    /// second still free) without an open session.
    public mutating func take(_ values: FieldValues, at time: Timestamp, in progress: SessionProgress?) -> SeriesPoint? {
        guard let progress else { return nil }
        lastSecond = time.monotonic.components.seconds
        let second = progress.elapsed.components.seconds
        if let lastPoint, lastPoint.session == progress.sessionID, lastPoint.second >= second { return nil }
        lastPoint = (progress.sessionID, second)
        return SeriesPoint(t: Double(second), values: values)
    }
}
