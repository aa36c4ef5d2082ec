/// Where a machine is in its connection life, as the `machine` message names it (contract §7).
package enum MachineState: String, Sendable, Hashable, Codable {
    case discovered
    case connecting
    case ready
    case disconnected

    var payloadName: StaticString {
        switch self {
        case .discovered: "discovered"
        case .connecting: "connecting"
        case .ready: "ready"
        case .disconnected: "disconnected"
        }
    }
}
