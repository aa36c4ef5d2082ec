package import Clocks
package import Store
import Workout

/// The gateway's tokens in use (SolidFocus Flow 8): it hands calls a valid access token,
/// refreshes ahead of expiry and on `401 token_expired`, and runs **one refresh at a time**
/// however many calls wait, because the backend rotates refresh tokens and treats a second
/// use of the old one as theft (revoking the whole login).
///
/// The rotated pair is stored, in one FULL-synced transaction, before any call uses it; a
/// refresh rejected with 401 deletes the tokens, keeps every session, and leaves the store
/// saying "login required" with the reason.
package actor TokenAuthority {
    let store: GatewayStore
    let client: BackendClient
    let clock: WallClock
    private var refreshing: Task<StoredTokens, any Error>?
    /// Refreshes this process has completed, for tests and the status line.
    package private(set) var refreshCount = 0

    package init(store: GatewayStore, client: BackendClient, clock: WallClock = .system) {
        self.store = store
        self.client = client
        self.clock = clock
    }

    /// Runs `call` with a valid access token; on `token_expired` refreshes (joining a refresh
    /// already in flight) and runs it once more. `proactive: false` skips the refresh ahead
    /// of expiry (logout, whose backend ignores expiry, should not spend a refresh).
    package func authorized<T: Sendable>(
        proactive: Bool = true, _ call: @Sendable (String) async throws -> T
    ) async throws -> T {
        var tokens = try await currentTokens()
        if proactive, isDue(tokens) {
            tokens = try await refresh(replacing: tokens.accessToken)
        }
        do {
            do {
                return try await call(tokens.accessToken)
            } catch BackendError.tokenExpired {
                let fresh = try await refresh(replacing: tokens.accessToken)
                return try await call(fresh.accessToken)
            }
        } catch BackendError.loginRequired(let reason) {
            // The backend revoked this login (logout elsewhere, an operator's unbind, reuse).
            try await store.dropTokens(reason: reason)
            throw BackendError.loginRequired(reason: reason)
        }
    }

    /// The stored tokens, or ``BackendError/loginRequired(reason:)``.
    func currentTokens() async throws -> StoredTokens {
        if let tokens = try await store.tokens() { return tokens }
        let state = try await store.accountState()
        throw BackendError.loginRequired(reason: state.loginRequiredReason ?? "not logged in")
    }

    /// Refreshes a little before expiry: a fifth of the token's life, at most a minute, so a
    /// 30-minute token is renewed at 29 minutes and a 5-second test token at 4.
    func isDue(_ tokens: StoredTokens) -> Bool {
        let lifetime = tokens.expiresAt.millisecondsSince1970 - tokens.issuedAt.millisecondsSince1970
        let margin = min(60_000, max(0, lifetime) / 5)
        return clock.now().millisecondsSince1970 >= tokens.expiresAt.millisecondsSince1970 - margin
    }

    /// The single flight: the first caller starts the refresh, every caller until it ends
    /// gets its result. Set before any suspension, so no second caller can slip in.
    func refresh(replacing stale: String) async throws -> StoredTokens {
        if let refreshing { return try await refreshing.value }
        let task = Task { try await self.performRefresh(replacing: stale) }
        refreshing = task
        defer { refreshing = nil }
        return try await task.value
    }

    private func performRefresh(replacing stale: String) async throws -> StoredTokens {
        let tokens = try await currentTokens()
        // Another process (or an earlier flight) already replaced the token that was refused.
        if tokens.accessToken != stale, !isDue(tokens) { return tokens }
        let grant: TokenGrant
        do {
            grant = try await client.refresh(refreshToken: tokens.refreshToken, deviceID: store.deviceID)
        } catch let error as BackendError {
            switch error {
            case .loginRequired(let reason):
                try await store.dropTokens(reason: reason)
            case .deviceAlreadyBound:
                try await store.dropTokens(reason: Self.boundElsewhere)
            default:
                break
            }
            throw error
        }
        let now = clock.now()
        let fresh = StoredTokens(
            accessToken: grant.accessToken, refreshToken: grant.refreshToken ?? tokens.refreshToken, issuedAt: now,
            expiresAt: now.adding(seconds: grant.expiresIn))
        try await store.saveTokens(fresh)
        refreshCount += 1
        return fresh
    }
}
