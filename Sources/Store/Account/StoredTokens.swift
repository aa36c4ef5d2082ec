public import Workout

/// The backend's tokens as kept (SolidFocus Flow 2 step 3). Never printed or logged: its
/// description shows only the expiry.
public struct StoredTokens: Sendable, Hashable, CustomStringConvertible {
    public var accessToken: String
    public var refreshToken: String
    /// When the access token was granted, to size the refresh margin to its lifetime.
    public var issuedAt: UTCTime
    /// `issuedAt + expires_in`.
    public var expiresAt: UTCTime

    public init(accessToken: String, refreshToken: String, issuedAt: UTCTime, expiresAt: UTCTime) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }

    public var description: String { "tokens(expire at \(expiresAt.iso8601))" }
}

/// Whether the gateway can talk to the backend, for `status` and the daemon.
public struct AccountState: Sendable, Hashable {
    /// Tokens are held.
    public var loggedIn: Bool
    /// Why the gateway needs a login (`refresh token rejected (invalid_token)`), when it was
    /// logged in before and lost its tokens; `nil` when logged in or never logged in.
    public var loginRequiredReason: String?
    /// The backend's `user_profile` object as JSON, kept from the login.
    public var userProfile: String?
    public var accessExpiresAt: UTCTime?

    public init(loggedIn: Bool, loginRequiredReason: String?, userProfile: String?, accessExpiresAt: UTCTime?) {
        self.loggedIn = loggedIn
        self.loginRequiredReason = loginRequiredReason
        self.userProfile = userProfile
        self.accessExpiresAt = accessExpiresAt
    }
}
