internal import JSON

/// ``FloorRules`` as a ``GatewayPresence`` carries them: durations in whole milliseconds.
extension FloorRules {
    var json: JSONValue {
        var object = JSONObject()
        object["heartbeat_ms"] = .integer(Self.milliseconds(heartbeat))
        object["lease_ms"] = .integer(Self.milliseconds(lease))
        object["rssi_margin"] = .integer(Int64(rssiMargin))
        object["heard_window_ms"] = .integer(Self.milliseconds(heardWindow))
        object["hold_unconfirmed_ms"] = .integer(Self.milliseconds(holdUnconfirmed))
        object["disconnect_grace_ms"] = .integer(Self.milliseconds(disconnectGrace))
        return .object(object)
    }

    init(wire: WireObject) throws(FloorWireError) {
        self.init(
            heartbeat: .milliseconds(try wire.integer("heartbeat_ms")), lease: .milliseconds(try wire.integer("lease_ms")),
            rssiMargin: try wire.integer("rssi_margin"), heardWindow: .milliseconds(try wire.integer("heard_window_ms")),
            holdUnconfirmed: .milliseconds(try wire.integer("hold_unconfirmed_ms")),
            disconnectGrace: .milliseconds(try wire.integer("disconnect_grace_ms")))
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        Int64((duration / .milliseconds(1)).rounded())
    }
}
