/// One gateway's strip: reachable or not, how much it has said, and its upload queue.
public struct GatewayStatus: Sendable, Equatable, Codable {
    public var name: String
    public var online: Bool
    /// Why it is offline (the socket's error, or the broker's last will).
    public var reason: String?
    public var lastSeq: UInt64
    public var messages: UInt64
    /// `seq` jumps seen: samples this dashboard lost because it fell behind.
    public var gaps: UInt64
    public var upload: GatewayUploadStatus?
    /// Dashboard time of the last event from this gateway.
    public var seen: Double

    public init(name: String, seen: Double) {
        self.name = name
        online = false
        lastSeq = 0
        messages = 0
        gaps = 0
        self.seen = seen
    }
}

/// The last `upload` message: the queue by state and what the run came to.
public struct GatewayUploadStatus: Sendable, Equatable, Codable {
    public var pending: Double?
    public var uploaded: Double?
    public var dead: Double?
    public var result: String?
    public var at: Double

    public init(pending: Double?, uploaded: Double?, dead: Double?, result: String?, at: Double) {
        self.pending = pending
        self.uploaded = uploaded
        self.dead = dead
        self.result = result
        self.at = at
    }
}
