/// A wall-clock instant in UTC, in milliseconds since 1970-01-01T00:00:00Z: the product's one
/// instant (summaries, the store, the wall clock, the reference backend).
///
/// Milliseconds are what contract §7's `timestamp` and `startEpoch` carry, and an integer keeps
/// checkpoints and summaries exact. Foundation's `Date` is a `Double`, and the pure modules
/// have no other use for Foundation, so the edges convert. Arithmetic saturates: times come
/// from outside (a live clock or a capture file), and a corrupt one must give odd dates, never
/// a trap on overflow.
public struct UTCTime: Sendable, Hashable, Comparable, Codable {
    public var millisecondsSince1970: Int64

    public init(millisecondsSince1970: Int64) {
        self.millisecondsSince1970 = millisecondsSince1970
    }

    public init(secondsSince1970: Int64) {
        millisecondsSince1970 = Self.saturating(secondsSince1970.multipliedReportingOverflow(by: 1000), positive: secondsSince1970 > 0)
    }

    /// Whole seconds since the epoch, rounded down (contract §7's `startEpoch`).
    public var secondsSince1970: Int64 {
        CivilDate.floorDivide(millisecondsSince1970, 1000)
    }

    /// Seconds since the epoch with the milliseconds as a fraction, for the `Double` clocks of
    /// the edges (the dashboard's, the reference backend's).
    public var unixSeconds: Double {
        Double(millisecondsSince1970) / 1000
    }

    /// This instant with its milliseconds dropped: summaries carry whole seconds.
    public var wholeSeconds: UTCTime {
        UTCTime(secondsSince1970: secondsSince1970)
    }

    public func adding(nanoseconds: Int64) -> UTCTime {
        adding(milliseconds: nanoseconds / 1_000_000)
    }

    public func adding(seconds: Int) -> UTCTime {
        let milliseconds = Int64(seconds).multipliedReportingOverflow(by: 1000)
        return adding(milliseconds: Self.saturating(milliseconds, positive: seconds > 0))
    }

    private func adding(milliseconds: Int64) -> UTCTime {
        UTCTime(millisecondsSince1970: Self.saturating(millisecondsSince1970.addingReportingOverflow(milliseconds), positive: milliseconds > 0))
    }

    private static func saturating(_ result: (partialValue: Int64, overflow: Bool), positive: Bool) -> Int64 {
        result.overflow ? (positive ? .max : .min) : result.partialValue
    }

    /// `2026-11-21T08:00:00Z`: ISO 8601 / RFC 3339 in UTC, whole seconds (SolidFocus's
    /// `started_at` / `ended_at`). Milliseconds are dropped, rounding down.
    public var iso8601: String {
        ISO8601.string(secondsSince1970: secondsSince1970)
    }

    /// The instant `text` names in ``ISO8601/Grammar/standard`` (a zone required), to the
    /// millisecond, rounding down; `nil` for anything else, never a guess.
    public init?(iso8601 text: some StringProtocol) {
        guard let sinceEpoch = ISO8601.parse(text) else { return nil }
        let (milliseconds, remainder) = sinceEpoch.attoseconds.quotientAndRemainder(dividingBy: 1_000_000_000_000_000)
        self.init(millisecondsSince1970: Int64(clamping: remainder < 0 ? milliseconds - 1 : milliseconds))
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
