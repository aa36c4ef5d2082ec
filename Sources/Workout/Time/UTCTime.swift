import CivilTime

/// A wall-clock instant in UTC, in milliseconds since 1970-01-01T00:00:00Z.
///
/// Milliseconds are what contract §7's `timestamp` and `startEpoch` carry, and an integer keeps
/// checkpoints and summaries exact. Foundation's `Date` is a `Double`, and the engine has no
/// other use for Foundation, so the daemon converts at its edge.
public struct UTCTime: Sendable, Hashable, Comparable, Codable {
    public var millisecondsSince1970: Int64

    public init(millisecondsSince1970: Int64) {
        self.millisecondsSince1970 = millisecondsSince1970
    }

    public init(secondsSince1970: Int64) {
        millisecondsSince1970 = Nanoseconds.multiply(secondsSince1970, 1000)
    }

    /// Whole seconds since the epoch, rounded down (contract §7's `startEpoch`).
    public var secondsSince1970: Int64 {
        CivilDate.floorDivide(millisecondsSince1970, 1000)
    }

    /// This instant with its milliseconds dropped: summaries carry whole seconds.
    public var wholeSeconds: UTCTime {
        UTCTime(secondsSince1970: secondsSince1970)
    }

    public func adding(nanoseconds: Int64) -> UTCTime {
        UTCTime(millisecondsSince1970: Nanoseconds.add(millisecondsSince1970, nanoseconds / Nanoseconds.perMillisecond))
    }

    public func adding(seconds: Int) -> UTCTime {
        UTCTime(millisecondsSince1970: Nanoseconds.add(millisecondsSince1970, Nanoseconds.multiply(Int64(seconds), 1000)))
    }

    public static func < (lhs: UTCTime, rhs: UTCTime) -> Bool {
        lhs.millisecondsSince1970 < rhs.millisecondsSince1970
    }

    public init(from decoder: any Decoder) throws {
        millisecondsSince1970 = try decoder.singleValueContainer().decode(Int64.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(millisecondsSince1970)
    }
}
