public import JSON

/// What a gateway tells the floor about itself on `PREFIX/floor/gateways/GATEWAY` (retained,
/// QoS 1), every `heartbeat` and at once on a change; its last will is the same message with
/// `online` false and nothing else.
///
/// Liveness is judged by the receiver: see ``FloorView/isLive(_:at:)``.
public struct GatewayPresence: Sendable, Hashable {
    public var gateway: String
    public var online: Bool
    /// The gateway's `machines.allow` entries as written: names or addresses, matched without case.
    public var home: [String]
    /// Links this gateway could still open.
    public var freeSlots: Int
    /// Machines heard in the last `heard_window`, by address: RSSI in dBm, rounded with
    /// ``roundedRSSI(_:)`` so a flickering signal does not republish the presence.
    public var heard: [String: Int]
    /// Machines this gateway has a link to (or is connecting to under its claim).
    public var holding: [String]
    /// Machines this gateway is handing over: it is no candidate for them.
    public var releasing: [String]
    /// Rides this gateway lost, by machine address: the session id of each session it held when
    /// it went away that no checkpoint carried over (nobody adopted it) while another gateway
    /// has held the machine since. The session open there is the rest of that ride: it says it
    /// split from this one (docs/fleet.md "When a ride splits"). Empty is left off the wire.
    public var lost: [String: String]
    /// Counts the presences this gateway has sent since it started: a reader can see one missed.
    public var beat: Int
    /// The gateway's `[fleet]` timings and margins, so `doctor` can tell gateways that place
    /// machines by different rules; nil from a gateway that does not say (and in a last will).
    public var rules: FloorRules?

    public init(
        gateway: String, online: Bool = true, home: [String] = [], freeSlots: Int = 0, heard: [String: Int] = [:],
        holding: [String] = [], releasing: [String] = [], lost: [String: String] = [:], beat: Int = 0, rules: FloorRules? = nil
    ) {
        self.gateway = gateway
        self.online = online
        self.home = home
        self.freeSlots = freeSlots
        self.heard = heard
        self.holding = holding
        self.releasing = releasing
        self.lost = lost
        self.beat = beat
        self.rules = rules
    }

    /// The last will a gateway sets on its MQTT connection: `{"gateway":"floor-1","online":false}`.
    public static func will(gateway: String) -> GatewayPresence {
        GatewayPresence(gateway: gateway, online: false)
    }

    /// RSSI to the nearest even dBm (2 dB steps): signal noise of ±1 dB changes nothing on the wire.
    public static func roundedRSSI(_ rssi: Int) -> Int {
        (rssi >= 0 ? (rssi + 1) / 2 : -((-rssi + 1) / 2)) * 2
    }

    public var json: JSONValue {
        var object = JSONObject()
        object["gateway"] = .string(gateway)
        object["online"] = .bool(online)
        guard online else { return .object(object) }
        object["home"] = .array(home.map { .string($0) })
        object["free_slots"] = .integer(Int64(freeSlots))
        object["heard"] = .object(JSONObject(sortingKeysOf: heard.mapValues { .integer(Int64($0)) }))
        object["holding"] = .array(holding.map { .string($0) })
        object["releasing"] = .array(releasing.map { .string($0) })
        if !lost.isEmpty { object["lost"] = .object(JSONObject(sortingKeysOf: lost.mapValues { .string($0) })) }
        object["beat"] = .integer(Int64(beat))
        if let rules { object["rules"] = rules.json }
        return .object(object)
    }

    /// The payload as published.
    public var payload: [UInt8] { JSONWriter.bytes(json) }

    /// Reads a payload; members a last will leaves out read as empty, `rules` as nil.
    public init(payload: [UInt8]) throws(FloorWireError) {
        let wire = try WireObject(payload, what: "gateway presence")
        gateway = try wire.string("gateway")
        online = try wire.bool("online")
        home = try wire.strings("home")
        freeSlots = try wire.optionalInteger("free_slots") ?? 0
        heard = try wire.integers("heard")
        holding = try wire.strings("holding")
        releasing = try wire.strings("releasing")
        lost = try wire.texts("lost")
        beat = try wire.optionalInteger("beat") ?? 0
        rules = try wire.optionalObject("rules").map { (rules) throws(FloorWireError) in try FloorRules(wire: rules) }
    }
}
