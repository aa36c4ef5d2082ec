import Hummingbird

/// Gives every refusal the same `{"error", "message"}` body, Hummingbird's own included (an
/// unknown route, a body too large), so a client parses one error shape.
struct ErrorBodyMiddleware: RouterMiddleware {
    typealias Context = BackendRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as BackendRefusal {
            return try error.response(from: request, context: context)
        } catch let error as any HTTPResponseError {
            return try BackendRefusal(error).response(from: request, context: context)
        }
    }
}
