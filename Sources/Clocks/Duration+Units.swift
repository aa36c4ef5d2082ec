/// A `Duration` counted in the units the C libraries, the database, systemd and the logs take:
/// the one place the project turns a `Duration` into a number.
///
/// The whole units are rounded down (toward the past for a negative span, so a clock's reading
/// in milliseconds never runs ahead of it) and clamped to `Int64`'s range: a span from outside
/// (a config key, a capture, a backend's date) gives an odd number, never a trap.
extension Duration {
    /// Whole milliseconds: libdbus's, libmosquitto's and poll(2)'s timeouts, the database's
    /// times, config values written back.
    public var milliseconds: Int64 { whole(1_000_000_000_000_000) }

    /// Whole microseconds: systemd's `MONOTONIC_USEC=` and `EXTEND_TIMEOUT_USEC=`, captures.
    public var microseconds: Int64 { whole(1_000_000_000_000) }

    /// Whole nanoseconds: NIO's `TimeAmount`, HTTP client deadlines, D-Bus clock answers.
    public var nanoseconds: Int64 { whole(1_000_000_000) }

    /// Seconds as a `Double` (rates, gauges, logs): not exact, so never for a stored time.
    public var seconds: Double { Double(attoseconds) / 1e18 }

    private func whole(_ attosecondsPerUnit: Int128) -> Int64 {
        let (quotient, remainder) = attoseconds.quotientAndRemainder(dividingBy: attosecondsPerUnit)
        return Int64(clamping: remainder < 0 ? quotient - 1 : quotient)
    }
}
