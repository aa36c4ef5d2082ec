import Store

/// What the start-up token check found (SolidFocus Flow 1 step 3).
package enum TokenCheck: Sendable, Equatable {
    /// Tokens held and valid (`refreshed` when this check renewed them).
    case valid(refreshed: Bool)
    /// No usable tokens: an operator must run `ftms-bridge login`. Sessions still queue.
    case loginRequired(reason: String)
    /// The backend could not be asked; the tokens are kept and tried again on upload.
    case unreachable(String)
}

extension TokenAuthority {
    /// Why the tokens went when the backend says the account is bound to another device.
    static let boundElsewhere = "device_already_bound: the account is bound to another device"

    /// Flow 1 step 3 on a gateway: checks the stored access token's expiry and refreshes it
    /// (through the same single flight as every other call) when it is due. No other API call
    /// is made, so an offline gym starts at once.
    package func checkAtStartup() async -> TokenCheck {
        do {
            let tokens = try await currentTokens()
            guard isDue(tokens) else { return .valid(refreshed: false) }
            _ = try await refresh(replacing: tokens.accessToken)
            return .valid(refreshed: true)
        } catch BackendError.loginRequired(let reason) {
            return .loginRequired(reason: reason)
        } catch BackendError.deviceAlreadyBound {
            return .loginRequired(reason: Self.boundElsewhere)
        } catch {
            return .unreachable("\(error)")
        }
    }
}
