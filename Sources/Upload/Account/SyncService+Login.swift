import Store
package import Workout

/// What a login brought down (SolidFocus Flow 2 steps 4 and 5). A failed download is kept as
/// its reason: the login itself stands (SolidFocus's known issue 1), the data comes later.
package struct LoginResult: Sendable {
    package var userProfile: String?
    /// Backend sessions stored here for the first time, as `uploaded`.
    package var sessionsAdded = 0
    /// Local sessions the backend turned out to hold already.
    package var sessionsAlreadyHeld = 0
    /// Entries of `GET /sessions` that were not readable sessions.
    package var sessionsSkipped = 0
    package var sessionsError: String?
    package var stats: WorkoutStats?
    package var statsError: String?
}

extension SyncService {
    /// SolidFocus Flow 2: `POST /auth/sso/{provider}`, the tokens stored, then `GET /sessions`
    /// merged by id and `GET /users/me/stats` adopted. Local data is never cleared: after a
    /// refresh token expired, the gateway's pending sessions are still there to upload.
    ///
    /// Throws ``BackendError/deviceAlreadyBound(message:)`` and
    /// ``BackendError/invalidIDToken(message:)`` as distinct errors; tokens are untouched then.
    @discardableResult
    package func login(provider: String, idToken: String) async throws -> LoginResult {
        let grant = try await client.login(provider: provider, idToken: idToken, deviceID: store.deviceID)
        guard let refreshToken = grant.refreshToken else { throw BackendError.badResponse("login: no refresh_token") }
        let now = clock.now()
        try await store.saveTokens(
            StoredTokens(accessToken: grant.accessToken, refreshToken: refreshToken, issuedAt: now, expiresAt: now.adding(seconds: grant.expiresIn)),
            userProfile: grant.userProfile)
        var result = LoginResult(userProfile: grant.userProfile)
        do {
            let downloaded = try await authority.authorized { [client] token in try await client.sessions(accessToken: token) }
            let merged = try await store.mergeDownloaded(downloaded.records)
            result.sessionsAdded = merged.added
            result.sessionsAlreadyHeld = merged.alreadyHeld
            result.sessionsSkipped = downloaded.skipped
        } catch let error as BackendError {
            result.sessionsError = error.description
        }
        do {
            let stats = try await authority.authorized { [client] token in try await client.stats(accessToken: token) }
            try await store.saveStats(stats, source: .server)
            result.stats = stats
        } catch let error as BackendError {
            result.statsError = error.description
        }
        return result
    }
}
