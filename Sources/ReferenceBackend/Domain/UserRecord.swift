import CivilTime
import JSON

/// A user as the server keeps it (SolidFocus "User"), keyed by the id token's subject.
struct UserRecord: Sendable, Hashable, Codable {
    let subject: String
    /// The provider of the first login (`apple`, `google`, `test`).
    let provider: String
    var email: String?
    var name: String?
    /// `user_info` as the first login sent it (Apple sends it only once).
    var userInfo: JSONValue?
    let createdAt: Int64
    /// `User.bound_device_id`: set by the first login, cleared by logout (contract §6 (device binding)).
    var boundDeviceID: String?
    /// What the last `PATCH /users/me/stats` set; cleared when a new session is accepted,
    /// because the server then computes the stats from the sessions again.
    var statsOverride: UserStats?

    enum CodingKeys: String, CodingKey {
        case subject, provider, email, name
        case userInfo = "user_info"
        case createdAt = "created_at"
        case boundDeviceID = "bound_device_id"
        case statsOverride = "stats_override"
    }

    var profile: UserProfile {
        UserProfile(
            userID: subject, provider: provider, email: email, name: name,
            createdAt: ISO8601.string(secondsSince1970: createdAt), boundDeviceID: boundDeviceID)
    }
}

/// `user_profile` in the login response and `GET /users/me`.
struct UserProfile: Sendable, Hashable, Codable {
    let userID: String
    let provider: String
    let email: String?
    let name: String?
    let createdAt: String
    let boundDeviceID: String?

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case provider, email, name
        case createdAt = "created_at"
        case boundDeviceID = "bound_device_id"
    }
}
