import Clocks
import Hummingbird

/// One line per request: method, path, status (or `dropped`), milliseconds.
///
/// Only the path is logged, never the query, headers or body, so no token or id token can
/// reach the log.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = BackendRequestContext
    let log: @Sendable (String) -> Void

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        func line(_ outcome: String) {
            let elapsed = ContinuousClock.now - start
            let milliseconds = elapsed.seconds * 1000
            log("\(request.method) \(request.uri.path) \(outcome) \(Self.format(milliseconds))ms")
        }
        do {
            let response = try await next(request, context)
            line(String(response.status.code))
            return response
        } catch is ConnectionDropped {
            line("dropped")
            throw ConnectionDropped()
        } catch {
            line("500")
            throw error
        }
    }

    /// One decimal place.
    static func format(_ milliseconds: Double) -> String {
        let tenths = Int((milliseconds * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
