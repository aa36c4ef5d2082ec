/// One login: the chain of rolling refresh tokens that started with it.
///
/// Only the newest refresh token is usable. Presenting an older one is reuse (a stolen or
/// replayed token, or two clients refreshing at once) and revokes the whole login, access
/// tokens included; the grace window (`--refresh-grace`) lets the token just replaced be
/// presented again for a few seconds, for a client that died before storing its successor.
struct TokenFamily: Sendable, Hashable, Codable {
    let id: String
    let subject: String
    let deviceID: String
    let createdAt: Double
    var currentRefreshID: String
    var previousRefreshID: String?
    var rotatedAt: Double?
    /// `seq` of the newest refresh token, so a restarted backend keeps numbering upwards.
    var refreshSeq: Int64
    var refreshes: Int
    var revoked: Bool

    enum CodingKeys: String, CodingKey {
        case id, subject, refreshes, revoked
        case deviceID = "device_id"
        case createdAt = "created_at"
        case currentRefreshID = "current_refresh_id"
        case previousRefreshID = "previous_refresh_id"
        case rotatedAt = "rotated_at"
        case refreshSeq = "refresh_seq"
    }
}
