import Clocks
public import GRDB

/// How a stored session's dates were made (the `dates` column; contract §5).
public enum SessionDates: String, Sendable, Hashable, CaseIterable, Codable, DatabaseValueConvertible {
    /// By a wall clock known to be true: uploaded as they are.
    case `true`
    /// By a clock not known to be true: not uploaded until the session is dated.
    case waiting
    /// The wait for a true clock ran out: dated as well as could be and uploaded with
    /// `detail.clock` `unsynchronised`; dated again if a true clock comes before the upload.
    case estimated

    /// A monotonic instant in whole milliseconds, as `boot_start` keeps it.
    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.milliseconds
    }
}

/// Pending sessions whose dates are not true yet, by ``SessionDates``.
public struct UndatedSessions: Sendable, Hashable {
    public var waiting = 0
    public var estimated = 0

    public init(waiting: Int = 0, estimated: Int = 0) {
        self.waiting = waiting
        self.estimated = estimated
    }
}
