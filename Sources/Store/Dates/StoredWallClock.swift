/// What the daemon last knew of the wall clock in one boot (the `wall_clock` row), so a daemon
/// restarted in that boot carries on from it (contract §5).
public struct StoredWallClock: Sendable, Hashable {
    public var boot: String
    /// Wall minus `CLOCK_BOOTTIME`, milliseconds, as last seen.
    public var offset: Int64
    /// The offset last trusted, and why (the daemon's own words).
    public var trustedOffset: Int64?
    public var trust: String?

    public init(boot: String, offset: Int64, trustedOffset: Int64?, trust: String?) {
        self.boot = boot
        self.offset = offset
        self.trustedOffset = trustedOffset
        self.trust = trust
    }
}
