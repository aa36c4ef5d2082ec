import Foundation
import Hummingbird
import NIOCore
import Store

/// The session pages' routes (``SessionPages``), reading the gateway's store through a
/// ``SessionLibrary``. A store that cannot be read is a 503 page with one line, never a crash;
/// an unknown id is a 404.
struct SessionRoutes: Sendable {
    let library: SessionLibrary
    let title: String
    let log: @Sendable (String) -> Void

    func add(to router: Router<BasicRequestContext>) {
        router.get("/sessions") { request, _ in
            let token = request.uri.queryParameters.get("token")
            return try await answer(token, root: "./") { store in
                html(.ok, SessionPages.list(title: title, sessions: try await store.recentSessions(limit: SessionPages.listLength), token: token))
            }
        }
        router.get("/api/sessions") { request, _ in
            try await answer(request.uri.queryParameters.get("token"), root: "../") { store in
                let items = try await store.recentSessions(limit: SessionPages.listLength).map(SessionPages.Item.init)
                return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"], body: .init(byteBuffer: EventFrame.json(items)))
            }
        }
        router.get("/sessions/:id") { request, context in
            let token = request.uri.queryParameters.get("token")
            guard let id = context.parameters.get("id"), SessionPages.isSessionID(Substring(id)) else { return notFound(token) }
            return try await answer(token, root: "../") { store in
                guard let session = try await store.session(id: id) else { return notFound(token) }
                let summary = try await store.sessionJSON(id: id)
                return html(.ok, SessionPages.detail(title: title, session: session, summary: summary, hasPlot: session.hasSeries, token: token))
            }
        }
        router.get("/sessions/:id/plot.svg") { request, context in
            let token = request.uri.queryParameters.get("token")
            guard let id = context.parameters.get("id"), SessionPages.isSessionID(Substring(id)) else { return notFound(token) }
            return try await answer(token, root: "../") { store in
                do {
                    let svg = try await SessionPlot.stored(id, in: store).svg
                    return Response(
                        status: .ok, headers: [.contentType: "image/svg+xml", .cacheControl: "no-store"], body: .init(byteBuffer: ByteBuffer(string: svg)))
                } catch let error as SessionPlot.Unavailable {
                    return plain(.notFound, "\(error)")
                }
            }
        }
        router.get("/sessions/:id/summary.json") { request, context in
            let token = request.uri.queryParameters.get("token")
            guard let id = context.parameters.get("id"), SessionPages.isSessionID(Substring(id)) else { return notFound(token) }
            return try await answer(token, root: "../") { store in
                guard let json = try await store.sessionJSON(id: id) else { return plain(.notFound, "no session \(id) in the queue") }
                return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"], body: .init(byteBuffer: ByteBuffer(string: json)))
            }
        }
    }

    /// Runs `body` against the store; a store that cannot be opened or read is a 503 with the
    /// one-line reason (logged once per request, without the token).
    private func answer(_ token: String?, root: String, _ body: (GatewayStore) async throws -> Response) async throws -> Response {
        do {
            return try await body(try library.store())
        } catch {
            log("dashboard: sessions unavailable: \(error)")
            return html(.serviceUnavailable, SessionPages.message(title: "Sessions unavailable", text: "\(error)", token: token, root: root))
        }
    }

    private func notFound(_ token: String?) -> Response {
        html(.notFound, SessionPages.message(title: "No such session", text: "This gateway's queue holds no session with that id.", token: token, root: "../"))
    }

    private func html(_ status: HTTPResponse.Status, _ page: String) -> Response {
        Response(status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"], body: .init(byteBuffer: ByteBuffer(string: page)))
    }

    private func plain(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"], body: .init(byteBuffer: ByteBuffer(string: text + "\n")))
    }
}
