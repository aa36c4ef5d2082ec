import GRDB
import Workout

extension GatewayStore {
    public func tokens() async throws -> StoredTokens? {
        try await read { db in try AccountRow.fetchOne(db)?.tokens }
    }

    /// Stores a grant, access and rolling refresh token together in one FULL-synced
    /// transaction, before either is used: a refresh token the backend has rotated away
    /// must never be the one left on disk. `userProfile` is kept when `nil` (a refresh
    /// carries none).
    public func saveTokens(_ tokens: StoredTokens, userProfile: String? = nil) async throws {
        let now = clock.now()
        try await write { db in
            var account = try AccountRow.fetchOne(db) ?? AccountRow(updatedAt: now)
            account.accessToken = tokens.accessToken
            account.refreshToken = tokens.refreshToken
            account.accessIssuedAt = tokens.issuedAt
            account.accessExpiresAt = tokens.expiresAt
            if let userProfile { account.userProfile = userProfile }
            account.loginRequiredReason = nil
            account.updatedAt = now
            try account.upsert(db)
        }
    }

    /// Deletes the tokens and marks the gateway "login required" with `reason`, keeping every
    /// session, the stats and the caches (SolidFocus Flow 8: a failed refresh never clears data).
    public func dropTokens(reason: String) async throws {
        let now = clock.now()
        try await write { db in
            var account = try AccountRow.fetchOne(db) ?? AccountRow(updatedAt: now)
            account.accessToken = nil
            account.refreshToken = nil
            account.accessIssuedAt = nil
            account.accessExpiresAt = nil
            account.loginRequiredReason = reason
            account.updatedAt = now
            try account.upsert(db)
        }
    }

    public func accountState() async throws -> AccountState {
        try await read(Self.accountState)
    }

    static func accountState(_ db: Database) throws -> AccountState {
        try AccountRow.fetchOne(db)?.state ?? AccountState(loggedIn: false, loginRequiredReason: nil, userProfile: nil, accessExpiresAt: nil)
    }

    /// Logout's wipe (SolidFocus Flow 6 step 3): tokens, profile, every session (pending ones
    /// too, and the session journal), checkpoints, stats, the trainings cache and the upload log go; `device_id` stays,
    /// so the next login rebinds the same gateway.
    public func wipeAccount() async throws {
        try await write { db in
            try AccountRow.deleteAll(db)
            try QueuedSession.deleteAll(db)
            try CheckpointRow.deleteAll(db)
            try StoredStats.deleteAll(db)
            try TrainingsCache.deleteAll(db)
            try UploadLogEntry.deleteAll(db)
        }
        // The sessions' second copies go with them: the next login may be another account's.
        if let journal {
            try await database.writeWithoutTransaction { _ in try journal.removeAll() }
        }
    }
}
