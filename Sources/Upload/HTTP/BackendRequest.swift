/// One call to the backend, before it goes on the wire.
///
/// Its description never shows the bearer token or the body, which may carry an id token:
/// requests are safe to log.
package struct BackendRequest: Sendable, CustomStringConvertible {
    package enum Method: String, Sendable {
        case get = "GET"
        case post = "POST"
        case patch = "PATCH"
    }

    package var method: Method
    /// The path under the backend's base URL, e.g. `/sessions/batch_upload`.
    package var path: String
    package var bearer: String?
    /// JSON, when the call has a body.
    package var body: [UInt8]?

    package init(_ method: Method, _ path: String, bearer: String? = nil, body: [UInt8]? = nil) {
        self.method = method
        self.path = path
        self.bearer = bearer
        self.body = body
    }

    package var description: String { "\(method.rawValue) \(path)" }
}

/// The backend's answer: status, the headers the client reads, and the body.
package struct BackendReply: Sendable {
    package var status: Int
    /// `Retry-After`, as sent (seconds or an HTTP date).
    package var retryAfter: String?
    /// `Date`: the backend's clock when it answered, what an HTTP-date `Retry-After` is read
    /// against.
    package var date: String?
    package var body: [UInt8]
    /// When the request went out and the answer's head came in, on `CLOCK_BOOTTIME`: the
    /// backend wrote its `Date` between the two, which bounds what its clock says of ours
    /// (``BackendDateSample``). `nil` from a transport that does not time its calls.
    package var sentAt: Duration?
    package var receivedAt: Duration?

    package init(
        status: Int, retryAfter: String? = nil, date: String? = nil, body: [UInt8] = [], sentAt: Duration? = nil, receivedAt: Duration? = nil
    ) {
        self.status = status
        self.retryAfter = retryAfter
        self.date = date
        self.body = body
        self.sentAt = sentAt
        self.receivedAt = receivedAt
    }
}

/// How calls reach the backend: AsyncHTTPClient in the product, anything in a test.
package protocol HTTPTransport: Sendable {
    /// Sends `request`, giving up after `timeout` for the whole exchange (connect, send,
    /// answer, body). Throws ``BackendError/timeout(seconds:)`` or
    /// ``BackendError/unreachable(_:)``; an HTTP error status is a reply, not a throw.
    func send(_ request: BackendRequest, timeout: Duration) async throws -> BackendReply
}
