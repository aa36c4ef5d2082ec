import Floor
import Publish

/// The gym floor as the dashboard knows it: every gateway and every machine tile, folded from
/// ``GatewayEvent``s. Pure: no I/O, no clock (`now` is passed in), so the page's server,
/// `watch`'s table and the tests share one fold.
public struct FloorState: Sendable, Equatable {
    public private(set) var gateways: [String: GatewayStatus] = [:]
    public private(set) var tiles: [TileKey: MachineTile] = [:]
    /// With the floor on: the newest claim of each machine (by upper-cased address), the holder
    /// before it, and each gateway's last online presence (its home list).
    private var claims: [String: MachineClaim] = [:]
    private var previousHolders: [String: String] = [:]
    private var presences: [String: GatewayPresence] = [:]
    /// Each tile's machine address, as its `machine` messages say: how a claim without a name
    /// finds its tiles.
    private var addresses: [TileKey: String] = [:]

    public init() {}

    /// A tile's identity: machine names are unique per gateway, not across a gym.
    public struct TileKey: Hashable, Sendable, Comparable {
        public var gateway: String
        public var machine: String

        public init(gateway: String, machine: String) {
            self.gateway = gateway
            self.machine = machine
        }

        public static func < (lhs: Self, rhs: Self) -> Bool {
            (lhs.gateway, lhs.machine) < (rhs.gateway, rhs.machine)
        }
    }

    /// What one event changed, for the hub to send on.
    public enum Change: Sendable, Equatable {
        /// A tile changed; `point` is a sparkline point it gained; `live` says it came from a
        /// sample (superseded within a second, so a slow browser may lose it).
        case tile(MachineTile, point: SparkPoint?, live: Bool)
        case gateway(GatewayStatus)
        /// Too much changed to say piecemeal (a snapshot): send everything again.
        case reset
    }

    /// Tiles in page order: by gateway, then machine name.
    public var orderedTiles: [MachineTile] {
        tiles.sorted { $0.key < $1.key }.map(\.value)
    }

    public var orderedGateways: [GatewayStatus] {
        gateways.values.sorted { $0.name < $1.name }
    }

    /// Applies one event; `now` is the dashboard's clock (Unix seconds), for the gateway strip.
    @discardableResult
    public mutating func apply(_ event: GatewayEvent, now: Double) -> [Change] {
        switch event {
        case .presence(let presence):
            // A last will keeps the home list the gateway last said: its config has not changed.
            guard presence.online else { return [] }
            presences[presence.gateway] = presence
            return relabel()
        case .claim(let claim):
            let machine = FloorTopics.machineKey(claim.machine)
            if let old = claims[machine] {
                // Epochs only grow (docs/fleet.md): an older claim arriving late changes nothing.
                guard claim.epoch > old.epoch else { return [] }
                if let holder = old.holder, holder != claim.holder { previousHolders[machine] = holder }
            }
            claims[machine] = claim
            return relabel()
        default:
            break
        }
        let name = event.gateway
        var gateway = gateways[name] ?? GatewayStatus(name: name, seen: now)
        gateway.seen = now
        defer { gateways[name] = gateway }
        switch event {
        case .online:
            gateway.online = true
            gateway.reason = nil
            return [.gateway(gateway)]
        case .offline(_, let reason):
            gateway.online = false
            gateway.reason = reason
            return [.gateway(gateway)]
        case .snapshot(_, let machines, let sessions, let seq):
            gateway.online = true
            gateway.reason = nil
            gateway.lastSeq = seq
            // Machines the gateway no longer knows go; the others keep their sparkline and
            // last values, which the next sample refreshes.
            let known = Set(machines.compactMap(\.envelope.machine))
            for key in tiles.keys where key.gateway == name && !known.contains(key.machine) {
                tiles[key] = nil
                addresses[key] = nil
            }
            for message in machines { applyMachine(message, gateway: name) }
            for key in tiles.keys where key.gateway == name { tiles[key]?.session = nil }
            for message in sessions { applySession(message, gateway: name) }
            return [.reset]
        case .message(_, let message):
            // A message is no sign of life: MQTT hands every new subscriber a gone gateway's
            // retained messages beside its retained `offline`. Only `online` (or a socket's
            // `hello`) brings back a gateway declared offline.
            if gateway.reason == nil { gateway.online = true }
            gateway.messages += 1
            if message.envelope.seq > gateway.lastSeq + 1, gateway.lastSeq > 0 { gateway.gaps += 1 }
            if message.envelope.seq > 0 { gateway.lastSeq = message.envelope.seq }
            switch message.envelope.type {
            case .machine:
                return applyMachine(message, gateway: name).map { [.tile($0, point: nil, live: false)] } ?? []
            case .sessionState:
                return applySession(message, gateway: name).map { [.tile($0, point: nil, live: false)] } ?? []
            case .sample:
                return applySample(message, gateway: name).map { [.tile($0.tile, point: $0.point, live: true)] } ?? []
            case .upload:
                gateway.upload = GatewayUploadStatus(
                    pending: message.payload["pending"]?.double, uploaded: message.payload["uploaded"]?.double,
                    dead: message.payload["dead"]?.double, result: message.payload["result"]?.string, at: message.envelope.timestamp.seconds)
                return [.gateway(gateway)]
            default:
                return []
            }
        case .presence, .claim:
            return []
        }
    }

    /// Every tile whose floor labels changed, relabelled.
    private mutating func relabel() -> [Change] {
        var changes: [Change] = []
        for (key, tile) in tiles {
            let labelled = labelled(tile)
            guard labelled != tile else { continue }
            tiles[key] = labelled
            changes.append(.tile(labelled, point: nil, live: false))
        }
        return changes.sorted { lhs, rhs in
            guard case .tile(let left, _, _) = lhs, case .tile(let right, _, _) = rhs else { return false }
            return TileKey(gateway: left.gateway, machine: left.name) < TileKey(gateway: right.gateway, machine: right.name)
        }
    }

    /// The tile with its holder, and whom it was adopted from while the holder is not its home:
    /// the gateway whose presence names it home, else the holder before.
    private func labelled(_ tile: MachineTile) -> MachineTile {
        var tile = tile
        let claim = claims.values.first { claim in
            claim.name.map { $0.lowercased() == tile.name.lowercased() } ?? false
                || addresses[TileKey(gateway: tile.gateway, machine: tile.name)].map { FloorTopics.machineKey($0) == FloorTopics.machineKey(claim.machine) } ?? false
        }
        tile.holder = claim?.holder
        tile.adoptedFrom = nil
        if let claim, let holder = claim.holder, claim.reason == .adopted {
            let home = presences.values.sorted { $0.gateway < $1.gateway }
                .first { $0.gateway != holder && $0.namesHome(machine: claim.machine, name: claim.name ?? tile.name) }
            tile.adoptedFrom = home?.gateway ?? previousHolders[FloorTopics.machineKey(claim.machine)]
        }
        return tile
    }

    private mutating func tile(_ gateway: String, _ machine: String, at time: Double) -> MachineTile {
        tiles[TileKey(gateway: gateway, machine: machine)] ?? MachineTile(gateway: gateway, name: machine, updated: time)
    }

    /// Keeps the tile, labelled with the floor's claims when there are any; returns it as kept.
    @discardableResult
    private mutating func store(_ tile: MachineTile) -> MachineTile {
        let kept = claims.isEmpty ? tile : labelled(tile)
        tiles[TileKey(gateway: tile.gateway, machine: tile.name)] = kept
        return kept
    }

    @discardableResult
    private mutating func applyMachine(_ message: MetricsMessage, gateway: String) -> MachineTile? {
        guard let machine = message.envelope.machine else { return nil }
        var tile = tile(gateway, machine, at: message.envelope.timestamp.seconds)
        let payload = message.payload
        tile.state = payload["state"]?.string ?? tile.state
        tile.reason = payload["reason"]?.string
        if let type = payload["type"]?.string { tile.type = type }
        if let model = payload["model"]?.string { tile.model = model }
        if let address = payload["address"]?.string { addresses[TileKey(gateway: gateway, machine: machine)] = address }
        if tile.state != "ready" {
            // Nothing is live on a machine that is not connected: keep totals, drop readings.
            tile.power = nil
            tile.cadence = nil
            tile.speed = nil
            tile.heartRate = nil
            tile.pace = nil
            tile.strokeRate = nil
        }
        tile.updated = max(tile.updated, message.envelope.timestamp.seconds)
        return store(tile)
    }

    @discardableResult
    private mutating func applySession(_ message: MetricsMessage, gateway: String) -> MachineTile? {
        guard let machine = message.envelope.machine, let state = message.payload["state"]?.string else { return nil }
        var tile = tile(gateway, machine, at: message.envelope.timestamp.seconds)
        tile.session = SessionClock(
            id: message.envelope.sessionID, state: state, elapsedMs: message.payload["elapsedMs"]?.double ?? 0, at: message.envelope.timestamp.seconds)
        // The session's own totals, from a gateway that sends them.
        if let distance = message.payload["distanceM"]?.double { tile.distance = distance }
        if let energy = message.payload["energyKcal"]?.double { tile.energy = energy }
        tile.updated = max(tile.updated, message.envelope.timestamp.seconds)
        return store(tile)
    }

    private mutating func applySample(_ message: MetricsMessage, gateway: String) -> (tile: MachineTile, point: SparkPoint?)? {
        guard let machine = message.envelope.machine else { return nil }
        var tile = tile(gateway, machine, at: message.envelope.timestamp.seconds)
        let payload = message.payload
        // A sample means a link: a tile first seen through one (a dashboard that joined late)
        // is connected.
        if tile.state == "discovered" || tile.state == "connecting" { tile.state = "ready" }
        tile.power = payload["instantaneous_power_w"]?.double
        tile.cadence = payload["instantaneous_cadence_rpm"]?.double
        tile.speed = payload["instantaneous_speed_kmh"]?.double
        tile.heartRate = payload["heart_rate_bpm"]?.double
        tile.pace = payload["instantaneous_pace_s_per_500m"]?.double
        tile.strokeRate = payload["stroke_rate_spm"]?.double
        if let distance = payload["session_distance_m"]?.double {
            // The ride, not the machine: the session's own totals and clock. The
            // machine's lifetime counters stay in the sample for whoever wants them.
            tile.distance = distance
            tile.energy = payload["session_energy_kcal"]?.double ?? tile.energy
            if let elapsed = payload["session_elapsed_ms"]?.double, tile.session?.id == message.envelope.sessionID {
                tile.session?.elapsedMs = elapsed
                tile.session?.at = message.envelope.timestamp.seconds
            }
        } else if message.envelope.sessionID == nil {
            // No session open: no ride to show (a machine's counters that did not start at
            // zero are not the rider's), except the totals of the one that just finished.
            if tile.session?.state != "finished" {
                tile.distance = nil
                tile.energy = nil
            }
        } else {
            // A gateway from before session totals: its counters, as before. Totals persist
            // through a record that leaves them out.
            tile.distance = payload["total_distance_m"]?.double ?? tile.distance
            tile.energy = payload["total_energy_kcal"]?.double ?? tile.energy
        }
        tile.updated = max(tile.updated, message.envelope.timestamp.seconds)
        var point: SparkPoint?
        if let power = tile.power, message.envelope.timestamp.seconds >= (tile.spark.last?.t ?? -.infinity) + 1 {
            let added = SparkPoint(t: message.envelope.timestamp.seconds, v: power)
            tile.spark.append(added)
            let horizon = message.envelope.timestamp.seconds - Double(Dashboard.sparklineSeconds)
            if let first = tile.spark.firstIndex(where: { $0.t >= horizon }), first > 0 { tile.spark.removeFirst(first) }
            point = added
        }
        return (store(tile), point)
    }

    /// Everything, for a new browser or a resync.
    public func snapshot(now: Double) -> FloorSnapshot {
        FloorSnapshot(now: now, gateways: orderedGateways, tiles: orderedTiles)
    }
}

/// The `hello` a browser gets: every gateway and every tile, with sparklines.
public struct FloorSnapshot: Sendable, Equatable, Codable {
    /// The dashboard's clock when it was made (Unix seconds): the page's offset for session clocks.
    public var now: Double
    public var gateways: [GatewayStatus]
    public var tiles: [MachineTile]
}
