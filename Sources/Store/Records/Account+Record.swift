public import GRDB
import Workout

/// The `account` row's tokens; times are Unix milliseconds.
extension StoredTokens: FetchableRecord {
    enum Columns {
        static let accessToken = Column("access_token")
        static let refreshToken = Column("refresh_token")
        static let accessIssuedAt = Column("access_issued_at")
        static let accessExpiresAt = Column("access_expires_at")
    }

    public init(row: Row) throws {
        self.init(
            accessToken: row[Columns.accessToken], refreshToken: row[Columns.refreshToken],
            issuedAt: UTCTime(millisecondsSince1970: row[Columns.accessIssuedAt] ?? 0),
            expiresAt: UTCTime(millisecondsSince1970: row[Columns.accessExpiresAt] ?? 0))
    }
}

/// What the `account` row says of the login, never the tokens themselves.
extension AccountState: FetchableRecord {
    enum Columns {
        static let loggedIn = Column("logged_in")
        static let loginRequiredReason = Column("login_required_reason")
        static let userProfile = Column("user_profile")
        static let accessExpiresAt = Column("access_expires_at")
    }

    public init(row: Row) throws {
        let expires: Int64? = row[Columns.accessExpiresAt]
        self.init(
            loggedIn: row[Columns.loggedIn], loginRequiredReason: row[Columns.loginRequiredReason], userProfile: row[Columns.userProfile],
            accessExpiresAt: expires.map(UTCTime.init(millisecondsSince1970:)))
    }
}
