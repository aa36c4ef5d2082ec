import Synchronization
import Upload

/// A backend in a closure: answers each request as the test scripts it, and keeps every
/// request it saw.
final class ScriptedTransport: HTTPTransport {
    private let answer: @Sendable (BackendRequest) async throws -> BackendReply
    private let seen = Mutex<[BackendRequest]>([])

    init(_ answer: @escaping @Sendable (BackendRequest) async throws -> BackendReply) {
        self.answer = answer
    }

    var requests: [BackendRequest] { seen.withLock { $0 } }

    func send(_ request: BackendRequest, timeout: Duration) async throws -> BackendReply {
        seen.withLock { $0.append(request) }
        return try await answer(request)
    }

    static func json(_ status: Int, _ body: String, retryAfter: String? = nil) -> BackendReply {
        BackendReply(status: status, retryAfter: retryAfter, body: Array(body.utf8))
    }
}
