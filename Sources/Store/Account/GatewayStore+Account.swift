import GRDB
import Workout

extension GatewayStore {
    public func tokens() async throws -> StoredTokens? {
        try await read { db in
            try StoredTokens.fetchOne(
                db,
                sql: """
                    SELECT access_token, refresh_token, access_issued_at, access_expires_at FROM account
                    WHERE access_token IS NOT NULL AND refresh_token IS NOT NULL
                    """)
        }
    }

    /// Stores a grant, access and rolling refresh token together in one FULL-synced
    /// transaction, before either is used: a refresh token the backend has rotated away
    /// must never be the one left on disk. `userProfile` is kept when `nil` (a refresh
    /// carries none).
    public func saveTokens(_ tokens: StoredTokens, userProfile: String? = nil) async throws {
        let now = clock.now().millisecondsSince1970
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO account (singleton, access_token, refresh_token, access_issued_at, access_expires_at,
                    user_profile, login_required_reason, updated_at) VALUES (1, ?, ?, ?, ?, ?, NULL, ?)
                    ON CONFLICT (singleton) DO UPDATE SET access_token = excluded.access_token,
                    refresh_token = excluded.refresh_token, access_issued_at = excluded.access_issued_at,
                    access_expires_at = excluded.access_expires_at,
                    user_profile = COALESCE(excluded.user_profile, account.user_profile),
                    login_required_reason = NULL, updated_at = excluded.updated_at
                    """,
                arguments: [
                    tokens.accessToken, tokens.refreshToken, tokens.issuedAt.millisecondsSince1970,
                    tokens.expiresAt.millisecondsSince1970, userProfile, now,
                ])
        }
    }

    /// Deletes the tokens and marks the gateway "login required" with `reason`, keeping every
    /// session, the stats and the caches (SolidFocus Flow 8: a failed refresh never clears data).
    public func dropTokens(reason: String) async throws {
        let now = clock.now().millisecondsSince1970
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO account (singleton, login_required_reason, updated_at) VALUES (1, ?, ?)
                    ON CONFLICT (singleton) DO UPDATE SET access_token = NULL, refresh_token = NULL,
                    access_issued_at = NULL, access_expires_at = NULL,
                    login_required_reason = excluded.login_required_reason, updated_at = excluded.updated_at
                    """,
                arguments: [reason, now])
        }
    }

    public func accountState() async throws -> AccountState {
        try await read(Self.accountState)
    }

    static func accountState(_ db: Database) throws -> AccountState {
        try AccountState.fetchOne(
            db, sql: "SELECT access_token IS NOT NULL AS logged_in, login_required_reason, user_profile, access_expires_at FROM account")
            ?? AccountState(loggedIn: false, loginRequiredReason: nil, userProfile: nil, accessExpiresAt: nil)
    }

    /// Logout's wipe (SolidFocus Flow 6 step 3): tokens, profile, every session (pending ones
    /// too), checkpoints, stats, the trainings cache and the upload log go; `device_id` stays,
    /// so the next login rebinds the same gateway.
    public func wipeAccount() async throws {
        try await write { db in
            for table in ["account", "sessions", "checkpoints", "stats", "trainings", "upload_log"] {
                try db.execute(sql: "DELETE FROM \(table)")
            }
        }
    }
}
