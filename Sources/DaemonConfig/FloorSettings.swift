extension DaemonConfig {
    /// `[fleet]`: the floor, the gateways of one gym placing machines among themselves through
    /// the `[mqtt]` broker (docs/mqtt.md, contract §11). Off by default: then this gateway is an
    /// island, as it always was. The durations are read on each receiver's monotonic clock.
    package struct Fleet: Sendable, Equatable {
        package var enabled = false
        /// This gateway's name on the floor; empty: `[mqtt] gateway` (itself the host name when empty).
        package var gateway = ""
        /// How often the gateway's presence is published (and at once on a change).
        package var heartbeat: Duration = .seconds(3)
        /// A gateway not heard from this long is gone, and its claims with it.
        package var lease: Duration = .seconds(10)
        /// dB by which another gateway must hear a machine better before it takes the machine's home from its holder.
        package var rssiMargin = 10
        /// A machine counts as heard while its last advertisement is this recent.
        package var heardWindow: Duration = .seconds(15)
        /// How long a restarted gateway holds its open checkpoints for the broker's word before it restores them.
        package var holdUnconfirmed: Duration = .seconds(120)
        /// `systemctl stop` hands each held machine to a neighbour first, as `ftms-bridge handover` does.
        package var handoverOnStop = false
        package init() {}
    }
}
