import JSON

/// The JSON bodies of successful answers, in SolidFocus's names.

/// `POST /auth/sso/{provider}`.
struct LoginResponse: Sendable, Codable {
    let accessToken: String
    let refreshToken: String
    let expiresIn: Int
    let userProfile: UserProfile

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case refreshToken = "refresh_token"
        case expiresIn = "expires_in"
        case userProfile = "user_profile"
    }
}

/// `POST /auth/refresh`.
struct RefreshResponse: Sendable, Codable {
    let accessToken: String
    let refreshToken: String
    let expiresIn: Int

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case refreshToken = "refresh_token"
        case expiresIn = "expires_in"
    }
}

/// `POST /sessions/batch_upload` (SolidFocus, "API Response 處理邏輯").
struct BatchUploadResponse: Sendable, Codable {
    var successCount: Int
    var duplicateCount: Int
    var failedSessions: [FailedSession]
    var updatedStats: UserStats

    enum CodingKeys: String, CodingKey {
        case successCount = "success_count"
        case duplicateCount = "duplicate_count"
        case failedSessions = "failed_sessions"
        case updatedStats = "updated_stats"
    }
}

/// One entry of `failed_sessions`: `session_id` is `null` when the session had no readable id.
struct FailedSession: Sendable, Hashable, Codable {
    let sessionID: String?
    let error: String
    let message: String

    enum CodingKeys: String, CodingKey {
        case sessionID = "session_id"
        case error, message
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sessionID, forKey: .sessionID)
        try container.encode(error, forKey: .error)
        try container.encode(message, forKey: .message)
    }
}

/// `POST /sessions` (one session; SolidFocus's error table answers a repeat with 400
/// `duplicate_session`).
struct SingleUploadResponse: Sendable, Codable {
    let sessionID: String
    let updatedStats: UserStats

    enum CodingKeys: String, CodingKey {
        case sessionID = "session_id"
        case updatedStats = "updated_stats"
    }
}

/// `GET /sessions`.
struct SessionsResponse: Sendable, Codable {
    let sessions: [JSONValue]
}

/// `GET /trainings`.
struct TrainingsResponse: Sendable, Codable {
    let trainings: [JSONValue]
}

/// `GET /users/me`.
struct MeResponse: Sendable, Codable {
    let userProfile: UserProfile
    let stats: UserStats

    enum CodingKeys: String, CodingKey {
        case userProfile = "user_profile"
        case stats
    }
}

/// Error bodies: `{"error": code, "message": …}`, the shape `failed_sessions` entries share.
struct ErrorResponse: Sendable, Codable {
    let error: String
    let message: String
}
