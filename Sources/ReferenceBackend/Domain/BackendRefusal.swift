/// A refusal with its HTTP status and SolidFocus's error code (`{"error": code, "message": …}`).
///
/// Codes are the SolidFocus error table's (`invalid_token`, `token_expired`,
/// `device_already_bound`, `validation_error`, `duplicate_session`) plus the few a real server
/// needs besides; docs/backend-api.md lists every one with the routes that return it.
public struct BackendRefusal: Error, Sendable, Equatable {
    public let statusCode: Int
    public let code: String
    public let message: String
    /// `Retry-After` seconds, for 429 and injected 503s.
    public let retryAfter: Int?

    public init(status: Int, code: String, message: String, retryAfter: Int? = nil) {
        self.statusCode = status
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
    }

    static func invalidRequest(_ message: String) -> BackendRefusal {
        BackendRefusal(status: 400, code: "invalid_request", message: message)
    }

    static func invalidToken(_ message: String) -> BackendRefusal {
        BackendRefusal(status: 401, code: "invalid_token", message: message)
    }

    static func tokenExpired(_ message: String) -> BackendRefusal {
        BackendRefusal(status: 401, code: "token_expired", message: message)
    }

    static func deviceAlreadyBound(_ message: String) -> BackendRefusal {
        BackendRefusal(status: 403, code: "device_already_bound", message: message)
    }

    static func notFound(_ message: String) -> BackendRefusal {
        BackendRefusal(status: 404, code: "not_found", message: message)
    }

    static func serverError(_ message: String) -> BackendRefusal {
        BackendRefusal(status: 500, code: "server_error", message: message)
    }
}
