/// When to try again after a run that left work undone: exponential backoff with full
/// jitter, capped (contract §6: "cap ~15 min"), and `Retry-After` honoured.
///
/// Full jitter (`random(0, min(cap, base · 2ⁿ⁻¹))`) because a gym's gateways all lose the
/// backend at once and must not all come back at the same instant.
package struct RetryPolicy: Sendable, Hashable {
    package var base: Duration
    package var cap: Duration
    /// A `Retry-After` beyond this is taken as this: a backend's typo must not park the
    /// queue for a week.
    package var longestRetryAfter: Duration

    package init(base: Duration = .seconds(2), cap: Duration = .seconds(900), longestRetryAfter: Duration = .seconds(3600)) {
        self.base = base
        self.cap = cap
        self.longestRetryAfter = longestRetryAfter
    }

    /// The ceiling of the `failures`-th consecutive retry's delay (1-based).
    package func ceiling(afterFailures failures: Int) -> Duration {
        var ceiling = base
        for _ in 1..<max(1, failures) {
            ceiling *= 2
            if ceiling >= cap { return cap }
        }
        return min(ceiling, cap)
    }

    /// The delay before the next attempt. With a `Retry-After`, at least that long (plus up
    /// to `base` of jitter); without, anywhere from zero to the ceiling.
    package func delay(afterFailures failures: Int, retryAfter: Duration?, using random: inout some RandomNumberGenerator) -> Duration {
        if let retryAfter {
            return min(max(retryAfter, .zero), longestRetryAfter) + Self.fraction(of: base, using: &random)
        }
        return Self.fraction(of: ceiling(afterFailures: failures), using: &random)
    }

    private static func fraction(of duration: Duration, using random: inout some RandomNumberGenerator) -> Duration {
        duration * Double.random(in: 0...1, using: &random)
    }
}
