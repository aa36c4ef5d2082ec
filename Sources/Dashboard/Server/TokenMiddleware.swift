import Hummingbird

/// Refuses a request without the read-only token, when there is one (a non-loopback
/// `--listen`). The token comes as `?token=` (an `EventSource` cannot set headers, and a TV's
/// bookmark is a URL) or as `Authorization: Bearer`.
struct TokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: AccessToken

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let query = request.uri.queryParameters.get("token")
        let header = request.headers[.authorization].flatMap { $0.hasPrefix("Bearer ") ? $0.dropFirst(7) : nil }
        let given: Substring? = if let query { Substring(query) } else { header }
        guard let given, token.matches(given) else {
            return Response(
                status: .unauthorized,
                headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: .init(string: "this dashboard needs its access token: open it as /?token=…\n")))
        }
        return try await next(request, context)
    }
}
