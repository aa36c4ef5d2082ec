import Clocks
import JSON
import Store
import Workout

/// Check 6b: is the gateway logged in to the backend? From the store only: the doctor never
/// sends the tokens anywhere, and never prints them (they are read solely so the report can
/// be scrubbed of them, see ``SecretRedactor``).
struct LoginCheck: Sendable {
    static let id = "login"
    static let title = "Login"

    var clock: WallClock

    /// The result, and the secrets the report must not contain.
    func run(_ store: GatewayStore) async -> (result: CheckResult, secrets: [String]) {
        let account: AccountState
        let tokens: StoredTokens?
        do {
            account = try await store.accountState()
            tokens = try await store.tokens()
        } catch {
            return (CheckResult(id: Self.id, title: Self.title, status: .failed, detail: "cannot read the login state: \(error)"), [])
        }
        let secrets = tokens.map { [$0.accessToken, $0.refreshToken] } ?? []
        var data: [String: JSONValue] = [
            "logged_in": .bool(account.loggedIn), "login_required_reason": .optional(account.loginRequiredReason),
            "access_expires_at": .optional(account.accessExpiresAt?.iso8601), "tokens": .string(account.loggedIn ? "held (redacted)" : "none"),
        ]
        if account.loggedIn {
            let now = clock.now()
            let expiry = account.accessExpiresAt.map { expires in
                expires < now ? "access token expired at \(expires.iso8601): the daemon refreshes it at its next call"
                    : "access token valid until \(expires.iso8601)"
            } ?? "access token expiry unknown"
            data["access_expired"] = .bool(account.accessExpiresAt.map { $0 < now } ?? false)
            return (CheckResult(id: Self.id, title: Self.title, status: .ok, detail: "logged in; \(expiry)", data: data), secrets)
        }
        if let reason = account.loginRequiredReason {
            return (CheckResult(
                id: Self.id, title: Self.title, status: .failed, detail: "login required: \(reason)",
                hint: "sessions queue but do not upload until `ftms-bridge login` succeeds", data: data), secrets)
        }
        return (CheckResult(
            id: Self.id, title: Self.title, status: .warning, detail: "not logged in",
            hint: "sessions queue on the gateway until `ftms-bridge login` is run", data: data), secrets)
    }
}
