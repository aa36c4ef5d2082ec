/// Why a backend call did not succeed, one line each, with the cases SolidFocus tells apart
/// kept apart (SolidFocus's error table, Flow 2 and Flow 8).
package enum BackendError: Error, CustomStringConvertible, Sendable, Equatable {
    /// `403 device_already_bound`: the account is bound to another device, or this gateway to
    /// another account. An operator must log out there or ask support to unbind.
    case deviceAlreadyBound(message: String?)
    /// `401` at login: the identity provider's id token was not accepted.
    case invalidIDToken(message: String?)
    /// No usable tokens: never logged in, logged out, or the refresh token was rejected.
    case loginRequired(reason: String)
    /// `401 token_expired` on a normal call: refresh and retry. Handled inside the client;
    /// callers see it only when the retry after a refresh was rejected the same way.
    case tokenExpired
    /// `429`, with the wait the backend asked for.
    case rateLimited(retryAfter: Duration?)
    /// `5xx`.
    case server(status: Int, code: String?, retryAfter: Duration?)
    /// Another `4xx` refusing the whole call.
    case rejected(status: Int, code: String?, message: String?)
    /// No complete answer in time.
    case timeout(seconds: Double)
    /// Connection refused, reset, DNS, TLS.
    case unreachable(String)
    /// An answer that does not follow the contract.
    case badResponse(String)
    /// The client was set up wrongly (a bad backend URL, an unusable provider name).
    case badConfiguration(String)

    package var description: String {
        switch self {
        case .deviceAlreadyBound(let message):
            "device_already_bound: "
                + (message ?? "this account is bound to another device, or this gateway to another account; log out there first, or ask support to unbind")
        case .invalidIDToken(let message):
            "invalid_token: the identity provider's id token was not accepted" + Self.suffix(message)
        case .loginRequired(let reason):
            "login required: \(reason); run ftms-bridge login"
        case .tokenExpired:
            "token_expired: the access token was refused again after a refresh"
        case .rateLimited(let retryAfter):
            "rate limited (HTTP 429)" + (retryAfter.map { "; retry after \(Self.format($0))" } ?? "")
        case .server(let status, let code, _):
            "HTTP \(status)" + (code.map { " \($0)" } ?? "")
        case .rejected(let status, let code, let message):
            "HTTP \(status)" + (code.map { " \($0)" } ?? "") + Self.suffix(message)
        case .timeout(let seconds):
            "no answer within \(Self.format(seconds)) s"
        case .unreachable(let reason):
            "backend unreachable: \(reason)"
        case .badResponse(let reason):
            "unexpected answer: \(reason)"
        case .badConfiguration(let reason):
            reason
        }
    }

    /// Failures that say nothing about the request itself: the same call may work later.
    package var isTransient: Bool {
        switch self {
        case .rateLimited, .server, .timeout, .unreachable, .badResponse: true
        default: false
        }
    }

    /// No answer came at all: the backend is down or out of reach.
    package var isUnanswered: Bool {
        switch self {
        case .timeout, .unreachable: true
        default: false
        }
    }

    /// Failures after which no further call can succeed until an operator acts.
    package var stopsUploads: Bool {
        switch self {
        case .deviceAlreadyBound, .loginRequired, .invalidIDToken, .tokenExpired, .badConfiguration: true
        default: false
        }
    }

    /// The wait the backend asked for, if any.
    package var retryAfter: Duration? {
        switch self {
        case .rateLimited(let retryAfter): retryAfter
        case .server(_, _, let retryAfter): retryAfter
        default: nil
        }
    }

    private static func suffix(_ message: String?) -> String {
        guard let message, !message.isEmpty else { return "" }
        return " (\(message))"
    }

    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }

    static func format(_ duration: Duration) -> String {
        format(AsyncHTTPTransport.seconds(duration)) + " s"
    }
}
