/// One machine's tile: what the page shows for it, and what `watch`'s table prints.
///
/// Values are the latest sample's, in the metrics socket's units (W, rpm, km/h, bpm, m, kcal,
/// s per 500 m, strokes per minute); nil when the machine does not report one or is not
/// connected. The sparkline is power over the last ``Dashboard/sparklineSeconds``.
public struct MachineTile: Sendable, Equatable, Codable {
    public var gateway: String
    public var name: String
    /// `bike`, `rower`, or what the daemon says.
    public var type: String
    public var model: String?
    /// `discovered`, `connecting`, `ready` or `disconnected`, as the daemon says.
    public var state: String
    public var reason: String?
    public var power: Double?
    public var cadence: Double?
    public var speed: Double?
    public var heartRate: Double?
    public var distance: Double?
    public var energy: Double?
    public var pace: Double?
    public var strokeRate: Double?
    public var session: SessionClock?
    /// With the floor on, the gateway holding the machine now (docs/fleet.md); nil without a claim.
    public var holder: String?
    /// With the floor on, the home gateway the holder adopted the machine from, while it is away.
    public var adoptedFrom: String?
    /// The gateway's timestamp of the last message about this machine.
    public var updated: Double
    public var spark: [SparkPoint]

    public init(gateway: String, name: String, updated: Double) {
        self.gateway = gateway
        self.name = name
        type = Self.type(fromName: name)
        state = "discovered"
        self.updated = updated
        spark = []
    }

    /// Before the daemon says, a SolidFocus machine's type is in its name (`SF-Bike-0001`).
    static func type(fromName name: String) -> String {
        let lowered = name.lowercased()
        if lowered.contains("rower") { return "rower" }
        if lowered.contains("bike") { return "bike" }
        return "unknown"
    }

    /// The tile as an update frame carries it: the sparkline travels once, in the snapshot.
    var withoutSpark: MachineTile {
        var tile = self
        tile.spark = []
        return tile
    }
}

/// One sparkline point: gateway time (Unix seconds) and watts.
public struct SparkPoint: Sendable, Equatable, Codable {
    public var t: Double
    public var v: Double

    public init(t: Double, v: Double) {
        self.t = t
        self.v = v
    }
}

/// A session's clock as of its last `session_state`: the page runs it forward while the
/// session is `started` or `resumed`.
public struct SessionClock: Sendable, Equatable, Codable {
    public var id: String?
    public var state: String
    public var elapsedMs: Double
    /// Gateway time of the `session_state` this was read from.
    public var at: Double

    /// Elapsed seconds at `now` (gateway time).
    public func elapsed(at now: Double) -> Double {
        let running = state == "started" || state == "resumed"
        return elapsedMs / 1000 + (running ? max(now - at, 0) : 0)
    }
}
