/// The floor as `status` shows it (text and JSON's `floor`): who holds each machine, as this
/// gateway's view has it, the sessions carried on and handed over, and the live gateways.
package struct FloorReport: Sendable, Codable, Hashable {
    package struct Machine: Sendable, Codable, Hashable {
        package var machine: String
        package var name: String?
        /// The live holder; nil when released or its holder is gone.
        package var holder: String?
        package var epoch: Int
        package var reason: String
        package var sessionID: String?
        /// The gateway whose session this gateway carries on for the machine.
        package var adoptedFrom: String?
        /// The session a ride split from here (its first part's checkpoint reached no broker).
        package var splitFrom: String?

        enum CodingKeys: String, CodingKey {
            case machine, name, holder, epoch, reason
            case sessionID = "session_id"
            case adoptedFrom = "adopted_from"
            case splitFrom = "split_from"
        }
    }

    package var gateway: String
    /// Whether the broker's retained floor has arrived since the floor's connection came up.
    package var brokerHeard: Bool
    package var liveGateways: [String]
    package var machines: [FloorReport.Machine]
    package var counters: FloorCounters

    enum CodingKeys: String, CodingKey {
        case gateway, machines, counters
        case brokerHeard = "broker_heard"
        case liveGateways = "live_gateways"
    }
}
