public import Workout

/// The last upload run's result, for `status` and the metrics socket.
public struct UploadLogEntry: Sendable, Hashable {
    public var finishedAt: UTCTime
    /// One line: `45 sessions in 3 batches: 45 uploaded`.
    public var result: String
    public var succeeded: Bool

    public init(finishedAt: UTCTime, result: String, succeeded: Bool) {
        self.finishedAt = finishedAt
        self.result = result
        self.succeeded = succeeded
    }
}
