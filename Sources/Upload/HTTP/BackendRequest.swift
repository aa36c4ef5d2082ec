/// One call to the backend, before it goes on the wire.
///
/// Its description never shows the bearer token or the body, which may carry an id token:
/// requests are safe to log.
public struct BackendRequest: Sendable, CustomStringConvertible {
    public enum Method: String, Sendable {
        case get = "GET"
        case post = "POST"
        case patch = "PATCH"
    }

    public var method: Method
    /// The path under the backend's base URL, e.g. `/sessions/batch_upload`.
    public var path: String
    public var bearer: String?
    /// JSON, when the call has a body.
    public var body: [UInt8]?

    public init(_ method: Method, _ path: String, bearer: String? = nil, body: [UInt8]? = nil) {
        self.method = method
        self.path = path
        self.bearer = bearer
        self.body = body
    }

    public var description: String { "\(method.rawValue) \(path)" }
}

/// The backend's answer: status, the one header the client reads, and the body.
public struct BackendReply: Sendable {
    public var status: Int
    /// `Retry-After`, as sent (seconds or an HTTP date).
    public var retryAfter: String?
    public var body: [UInt8]

    public init(status: Int, retryAfter: String? = nil, body: [UInt8] = []) {
        self.status = status
        self.retryAfter = retryAfter
        self.body = body
    }
}

/// How calls reach the backend: AsyncHTTPClient in the product, anything in a test.
public protocol HTTPTransport: Sendable {
    /// Sends `request`, giving up after `timeout` for the whole exchange (connect, send,
    /// answer, body). Throws ``BackendError/timeout(seconds:)`` or
    /// ``BackendError/unreachable(_:)``; an HTTP error status is a reply, not a throw.
    func send(_ request: BackendRequest, timeout: Duration) async throws -> BackendReply
}
