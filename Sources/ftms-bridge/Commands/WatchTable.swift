import Dashboard
import Publish
import Foundation

/// `watch`'s table mode: the dashboard's fold (``FloorState``) printed as one row per machine,
/// redrawn in place like `top` on a terminal, or printed whole at each refresh with `--table`
/// on a pipe (so a test or a log can read it).
struct WatchTable {
    static let gateway = "local"
    /// The least time between two redraws: samples come at 4 Hz per machine.
    static let refresh = 0.5

    private(set) var floor = FloorState()
    private var greeted = false
    private var lastDrawn = -Double.infinity

    /// Folds one envelope of the socket.
    mutating func apply(_ message: MetricsMessage, now: Double) {
        if message.envelope.type == .hello {
            greeted = true
            if let snapshot = GatewayEvent.snapshot(gateway: Self.gateway, hello: message) { floor.apply(snapshot, now: now) }
        } else if greeted {
            floor.apply(.message(gateway: Self.gateway, message), now: now)
        }
    }

    /// True when a redraw is due (and records it as done).
    mutating func due(now: Double) -> Bool {
        guard now - lastDrawn >= Self.refresh else { return false }
        lastDrawn = now
        return true
    }

    /// The table, heading first; `now` runs the session clocks forward.
    func rendered(now: Double) -> String {
        let header = ["MACHINE", "TYPE", "STATE", "POWER", "CADENCE", "PACE", "SPM", "SPEED", "HR", "DISTANCE", "ENERGY", "SESSION"]
        let rows = floor.orderedTiles.map { tile in
            [
                tile.name, tile.type, tile.state, Self.number(tile.power, "W"), Self.number(tile.cadence, "rpm"),
                tile.pace.map(Self.pace) ?? "-", Self.number(tile.strokeRate, ""), tile.speed.map { String(format: "%.1f km/h", $0) } ?? "-",
                Self.number(tile.heartRate, "bpm"), Self.number(tile.distance, "m"), Self.number(tile.energy, "kcal"),
                tile.session.map { "\($0.state) \(Self.clock($0.elapsed(at: now)))" } ?? "-",
            ]
        }
        var text = renderTable([header] + rows)
        if rows.isEmpty { text += "\n(no machines yet)" }
        if let upload = floor.gateways[Self.gateway]?.upload {
            text += "\nupload queue: \(Self.number(upload.pending, "pending")), \(Self.number(upload.uploaded, "sent")), "
                + "\(Self.number(upload.dead, "failed")); last: \(upload.result ?? "-")"
        }
        return text
    }

    static func number(_ value: Double?, _ unit: String) -> String {
        guard let value else { return "-" }
        return unit.isEmpty ? String(format: "%.0f", value) : String(format: "%.0f %@", value, unit)
    }

    static func pace(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        return String(format: "%d:%02d /500m", whole / 60, whole % 60)
    }

    static func clock(_ seconds: Double) -> String {
        let whole = max(Int(seconds), 0)
        return whole >= 3600
            ? String(format: "%d:%02d:%02d", whole / 3600, whole / 60 % 60, whole % 60)
            : String(format: "%d:%02d", whole / 60, whole % 60)
    }
}
