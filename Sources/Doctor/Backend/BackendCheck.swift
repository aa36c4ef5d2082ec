import JSON
import Foundation
import Upload

/// Check 6a: does the backend answer? One unauthenticated `GET /users/me`: a SolidFocus
/// backend answers `401 invalid_token` without credentials, and any HTTP answer at all proves
/// the network path. No token is ever sent: whether the login works is the login check's
/// business, from the store.
struct BackendCheck: Sendable {
    static let id = "backend"
    static let title = "Backend"
    static let probePath = "/users/me"

    var url: String
    var source: String
    var timeout: Duration

    func run() async -> CheckResult {
        var data: [String: JSONValue] = ["url": .string(url), "source": .string(source)]
        guard !url.isEmpty else {
            data["configured"] = false
            return CheckResult(
                id: Self.id, title: Self.title, status: .warning, detail: "no backend configured: sessions queue on the gateway",
                hint: "set backend.url in the config (or give --backend to check one)", data: data)
        }
        data["configured"] = true
        let transport: AsyncHTTPTransport
        do {
            transport = try AsyncHTTPTransport(baseURL: url)
        } catch {
            data["error"] = .string("\(error)")
            return CheckResult(id: Self.id, title: Self.title, status: .failed, detail: "\(error)", hint: "fix backend.url", data: data)
        }
        let started = ContinuousClock.now
        do {
            let reply = try await transport.send(BackendRequest(.get, Self.probePath), timeout: timeout)
            let elapsed = ContinuousClock.now - started
            let code = ErrorBody(reply.body).code
            data["reachable"] = true
            data["http_status"] = .integer(Int64(reply.status))
            data["error_code"] = .optional(code)
            data["elapsed_ms"] = .integer(Int64(Seconds.milliseconds(elapsed)))
            let answer = "HTTP \(reply.status)" + (code.map { " \($0)" } ?? "")
            let detail = "\(url) answers GET \(Self.probePath) with \(answer) in \(Seconds.text(elapsed))"
            if reply.status >= 500 {
                return CheckResult(
                    id: Self.id, title: Self.title, status: .warning, detail: "\(detail): the backend has trouble",
                    hint: "uploads retry with backoff; if it lasts, ask the backend's operators", data: data)
            }
            return CheckResult(id: Self.id, title: Self.title, status: .ok, detail: detail, data: data)
        } catch {
            data["reachable"] = false
            data["error"] = .string("\(error)")
            return CheckResult(
                id: Self.id, title: Self.title, status: .failed, detail: "\(url) (\(source)): \(error)",
                hint: "check the URL, DNS, the firewall and the gateway's network; sessions queue until it answers", data: data)
        }
    }
}
