/// Saturating nanosecond arithmetic for the engine's internal clock.
///
/// Times come from outside (a live clock or a capture file), so nothing about their range can
/// be trusted: a corrupt capture must give odd sessions, never a trap on overflow. The engine
/// keeps monotonic instants as `Int64` nanoseconds, which is exact, `Codable` and cheaper than
/// `Duration`'s 128-bit arithmetic on the per-sample path.
enum Nanoseconds {
    static let perSecond: Int64 = 1_000_000_000
    static let perMillisecond: Int64 = 1_000_000

    static func of(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let limit = Int64.max / perSecond - 1
        if seconds > limit { return .max }
        if seconds < -limit { return .min }
        return seconds * perSecond + attoseconds / 1_000_000_000
    }

    static func add(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        guard overflow else { return sum }
        return b > 0 ? .max : .min
    }

    static func subtract(_ a: Int64, _ b: Int64) -> Int64 {
        let (difference, overflow) = a.subtractingReportingOverflow(b)
        guard overflow else { return difference }
        return b < 0 ? .max : .min
    }

    static func multiply(_ a: Int64, _ b: Int64) -> Int64 {
        let (product, overflow) = a.multipliedReportingOverflow(by: b)
        guard overflow else { return product }
        return (a < 0) == (b < 0) ? .max : .min
    }

    static func seconds(_ nanoseconds: Int64) -> Double {
        Double(nanoseconds) / Double(perSecond)
    }

    /// Whole seconds, rounded half up; negative spans count as zero.
    static func roundedSeconds(_ nanoseconds: Int64) -> Int {
        guard nanoseconds > 0 else { return 0 }
        return Int(add(nanoseconds, perSecond / 2) / perSecond)
    }

    static func duration(_ nanoseconds: Int64) -> Duration {
        .nanoseconds(nanoseconds)
    }
}
