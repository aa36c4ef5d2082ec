/// When each machine the fleet waits to reconnect was last heard advertising, to tell a
/// machine that wakes (its first advertisement after a silence: switched on, woken by a
/// rider) from one that advertises all along yet fails to connect.
///
/// Only the first kind cuts a reconnect backoff short (``MachineSupervisor/wake()``): a
/// machine that keeps advertising and keeps refusing must still back off, or every
/// advertisement would become a connection attempt. Pure: instants come from the caller.
struct AdvertisementLog: Sendable {
    /// A silence at least this long makes the next advertisement a wake.
    let quiet: Duration
    private var lastHeard: [String: Duration] = [:]

    init(quiet: Duration) {
        self.quiet = quiet
    }

    /// Notes an advertisement of `key` at `time`; returns whether it ends a silence of at
    /// least ``quiet`` (or is the first one heard since ``forget(_:)``).
    mutating func heard(_ key: String, at time: Duration) -> Bool {
        let previous = lastHeard[key]
        lastHeard[key] = time
        guard let previous else { return true }
        return time - previous >= quiet
    }

    /// The machine connected: its next advertisement, after the next drop, is a wake again.
    mutating func forget(_ key: String) {
        lastHeard[key] = nil
    }
}
