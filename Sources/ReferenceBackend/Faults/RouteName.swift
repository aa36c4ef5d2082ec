/// The API routes by name: fault rules select routes by these, and counters count per name.
public enum RouteName: String, Sendable, Codable, CaseIterable, Comparable {
    /// `POST /auth/sso/{provider}`
    case sso
    /// `POST /auth/refresh`
    case refresh
    /// `POST /auth/logout`
    case logout
    /// `POST /sessions/batch_upload`
    case batchUpload = "batch_upload"
    /// `POST /sessions`
    case upload
    /// `GET /sessions`
    case sessions
    /// `GET /users/me`
    case me
    /// `GET /users/me/stats`
    case stats
    /// `PATCH /users/me/stats`
    case patchStats = "patch_stats"
    /// `GET /trainings`
    case trainings

    /// The routes that receive sessions, where `invalid` faults apply.
    static let receivingSessions: Set<RouteName> = [.batchUpload, .upload]

    public static func < (lhs: RouteName, rhs: RouteName) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
