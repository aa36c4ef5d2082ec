/// What this gateway did on the floor since it started, for Prometheus and `status`.
package struct FloorCounters: Sendable, Codable, Hashable {
    /// A session this gateway held that another gateway carried on: never uploaded from here.
    package struct HandedOver: Sendable, Codable, Hashable {
        package var sessionID: String
        package var machine: String
        package var to: String

        enum CodingKeys: String, CodingKey {
            case machine, to
            case sessionID = "session_id"
        }
    }

    /// Sessions carried on here from another gateway's mirrored checkpoint.
    package var adoptions = 0
    /// Machines handed to the floor on purpose (`handover`, or a stop with `handover_on_stop`).
    package var handovers = 0
    /// Rides that split here: their first part's checkpoint reached no broker.
    package var splitSessions = 0
    /// Sessions of this gateway that another carried on.
    package var handedOver: [HandedOver] = []
    /// Presences another box published under this gateway's floor name (``FloorCoordinator``):
    /// anything but 0 means two gateways share a name.
    package var nameClashes = 0

    enum CodingKeys: String, CodingKey {
        case adoptions, handovers
        case splitSessions = "split_sessions"
        case nameClashes = "name_clashes"
        case handedOver = "handed_over"
    }

    package init() {}
}
