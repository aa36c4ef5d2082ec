import GRDB
import Workout

/// The `account` table's one row (`singleton = 1`): the tokens, the user's profile, and why a
/// login is needed. ``StoredTokens`` and ``AccountState`` are what the rest of the gateway
/// sees of it.
struct AccountRow: Hashable, Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "account"

    var singleton = 1
    var accessToken: String?
    var refreshToken: String?
    var accessIssuedAt: UTCTime?
    var accessExpiresAt: UTCTime?
    /// The backend's `user_profile` object as JSON, kept as sent.
    var userProfile: String?
    var loginRequiredReason: String?
    var updatedAt: UTCTime

    enum CodingKeys: String, ColumnKey {
        case singleton
        case accessToken = "access_token"
        case refreshToken = "refresh_token"
        case accessIssuedAt = "access_issued_at"
        case accessExpiresAt = "access_expires_at"
        case userProfile = "user_profile"
        case loginRequiredReason = "login_required_reason"
        case updatedAt = "updated_at"
    }

    /// The tokens, when both are held.
    var tokens: StoredTokens? {
        guard let accessToken, let refreshToken else { return nil }
        return StoredTokens(
            accessToken: accessToken, refreshToken: refreshToken, issuedAt: accessIssuedAt ?? UTCTime(millisecondsSince1970: 0),
            expiresAt: accessExpiresAt ?? UTCTime(millisecondsSince1970: 0))
    }

    var state: AccountState {
        AccountState(
            loggedIn: accessToken != nil, loginRequiredReason: loginRequiredReason, userProfile: userProfile,
            accessExpiresAt: accessExpiresAt)
    }
}
