import Floor
import JSON
import MQTT

/// Whether the gateways on the floor can place machines together: the presences the broker
/// holds and sends during the check, judged against this gateway's own `[fleet]` rules.
/// Placement is the same function on every gateway only if `heartbeat`, `lease` and
/// `rssi_margin` are the same everywhere, and a name two gateways share makes their presences
/// overwrite each other (so each looks alive and dead by turns). Pure: it only reads messages.
struct FloorSettingsReview: Sendable {
    static let id = "floor.settings"
    static let title = "Floor settings"

    var topics: FloorTopics
    /// This gateway's name on the floor when the config names it (`[fleet] gateway`, else
    /// `[mqtt] gateway`); empty when the daemon takes the host name.
    var gateway: String
    var home: [String]
    var rules: FloorRules

    /// One line when all agree (or no other gateway is there), else one line per finding.
    func results(_ messages: [MQTTMessage]) -> [CheckResult] {
        var presences: [String: [GatewayPresence]] = [:]
        var order: [String] = []
        var findings: [CheckResult] = []
        for message in messages where !message.payload.isEmpty {
            guard case .presence(let name)? = topics.parse(message.topic) else { continue }
            do {
                let presence = try GatewayPresence(payload: message.payload)
                guard presence.online else { continue }
                if presences[name] == nil { order.append(name) }
                presences[name, default: []].append(presence)
            } catch {
                findings.append(finding("floor.presence.\(name)", "\(message.topic) is not a gateway presence: \(error)",
                    hint: "only ftms-bridge gateways publish presences on the floor's presence topics"))
            }
        }
        for name in order {
            let seen = presences[name] ?? []
            if let reason = Self.twoPublishers(seen, named: name, ownName: gateway, ownHome: home) {
                findings.append(finding("floor.name.\(name)", reason, hint: "give each gateway its own [fleet] gateway (or [mqtt] gateway) name"))
            }
            guard let last = seen.last else { continue }
            guard let theirs = last.rules else {
                findings.append(finding("floor.settings.\(name)", "\(name) does not say its [fleet] settings: it cannot be compared",
                    hint: "run the same ftms-bridge version on every gateway"))
                continue
            }
            let differences = differences(theirs)
            if !differences.isEmpty {
                findings.append(finding("floor.settings.\(name)", "\(name) runs \(differences.joined(separator: ", "))",
                    hint: "set the same [fleet] heartbeat, lease and rssi_margin on every gateway"))
            }
        }
        guard findings.isEmpty else { return findings }
        let data: [String: JSONValue] = ["gateways": .array(order.map { .string($0) })]
        let detail = order.isEmpty
            ? "no gateway on the floor yet (this config: \(Self.describe(rules)))"
            : "\(order.count) gateway\(order.count == 1 ? "" : "s") on the floor (\(order.joined(separator: ", "))) run \(Self.describe(rules)) as this config does"
        return [CheckResult(id: Self.id, title: Self.title, status: .ok, detail: detail, data: data)]
    }

    private func finding(_ id: String, _ detail: String, hint: String) -> CheckResult {
        CheckResult(id: id, title: Self.title, status: .warning, detail: detail, hint: hint)
    }

    /// The settings that must agree and do not: "lease 12 s (this gateway 10 s)".
    private func differences(_ theirs: FloorRules) -> [String] {
        var found: [String] = []
        if theirs.heartbeat != rules.heartbeat { found.append("heartbeat \(Seconds.text(theirs.heartbeat)) (this gateway \(Seconds.text(rules.heartbeat)))") }
        if theirs.lease != rules.lease { found.append("lease \(Seconds.text(theirs.lease)) (this gateway \(Seconds.text(rules.lease)))") }
        if theirs.rssiMargin != rules.rssiMargin { found.append("rssi_margin \(theirs.rssiMargin) (this gateway \(rules.rssiMargin))") }
        return found
    }

    private static func describe(_ rules: FloorRules) -> String {
        "heartbeat \(Seconds.text(rules.heartbeat)), lease \(Seconds.text(rules.lease)), rssi_margin \(rules.rssiMargin)"
    }

    /// Why the presences on one gateway's topic come from two gateways, if they do: home lists
    /// that differ, or a beat count that goes back (a restart starts again at 0 or 1, so a beat
    /// back to more than that is another counter); or, for this gateway's own name, a home list
    /// that is not this config's `machines.allow`.
    static func twoPublishers(_ presences: [GatewayPresence], named name: String, ownName: String, ownHome: [String]) -> String? {
        for (earlier, later) in zip(presences, presences.dropFirst()) {
            if earlier.home != later.home {
                return "two gateways publish as \(name): their home lists differ (\(list(earlier.home)) and \(list(later.home)))"
            }
            if later.beat < earlier.beat && later.beat > 1 {
                return "two gateways publish as \(name): its beat went from \(earlier.beat) back to \(later.beat)"
            }
        }
        if name == ownName, let last = presences.last, last.home != ownHome {
            return "another gateway publishes as \(name), this gateway's name: its home list is \(list(last.home)), this config's machines.allow \(list(ownHome)) (or the daemon runs an older config)"
        }
        return nil
    }

    private static func list(_ entries: [String]) -> String {
        "[" + entries.joined(separator: ", ") + "]"
    }
}
