/// The floor's timings and margins (`[fleet]`, docs/fleet.md). Every gateway of a gym should run
/// the same values (`doctor` compares them): placement is the same function on every view only
/// if its rules are the same.
public struct FloorRules: Sendable, Hashable {
    /// How often a gateway republishes its presence (and at once on a change).
    public var heartbeat: Duration
    /// A gateway whose presence has not arrived for this long is gone, whatever it last said:
    /// the receiver's own monotonic clock, from the message's arrival.
    public var lease: Duration
    /// A holder found by signal stays home unless another candidate hears the machine this many
    /// dB better: hysteresis against flapping.
    public var rssiMargin: Int
    /// A machine counts as heard for this long after its last advertisement.
    public var heardWindow: Duration
    /// How long a gateway back with a checkpoint of its own waits for the broker to say whether
    /// a neighbour adopted that session, before it restores it as it would without the floor.
    public var holdUnconfirmed: Duration
    /// The sessions' `disconnect_grace`: a mirrored checkpoint older than this is not adopted
    /// (the session has ended at it, as a local one would).
    public var disconnectGrace: Duration

    public init(
        heartbeat: Duration = .seconds(3), lease: Duration = .seconds(10), rssiMargin: Int = 10, heardWindow: Duration = .seconds(15),
        holdUnconfirmed: Duration = .seconds(120), disconnectGrace: Duration = .seconds(60)
    ) {
        self.heartbeat = heartbeat
        self.lease = lease
        self.rssiMargin = rssiMargin
        self.heardWindow = heardWindow
        self.holdUnconfirmed = holdUnconfirmed
        self.disconnectGrace = disconnectGrace
    }
}
