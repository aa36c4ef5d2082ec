public import GRDB
public import Workout

/// A session handed over to another gateway, as `status` lists it: a projection of the
/// `handed_over` row (``GatewayStore/handedOver()``).
public struct HandedOverSession: Sendable, Hashable, Decodable, FetchableRecord {
    public var sessionID: String
    public var machineAddress: String
    /// The gateway that carries it on, as the floor names it (`[fleet] gateway`).
    public var gateway: String
    /// When this gateway learnt it, on its wall clock (whatever that was worth then).
    public var handedOverAt: UTCTime

    enum CodingKeys: String, CodingKey {
        case sessionID = "session_id"
        case machineAddress = "machine_address"
        case gateway
        case handedOverAt = "handed_over_at"
    }
}
