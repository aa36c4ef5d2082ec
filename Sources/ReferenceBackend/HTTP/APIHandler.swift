import Hummingbird
import NIOCore

/// What every API route does around its own work: the fault rules (latency, refusal before
/// the work, drop or stall after it) and the per-route counts.
struct APIHandler: Sendable {
    let backend: Backend

    typealias Work = @Sendable (Request, BackendRequestContext) async throws(BackendRefusal) -> Reply

    func callAsFunction(_ route: RouteName, _ work: @escaping Work) -> @Sendable (Request, BackendRequestContext) async throws -> Response {
        { [backend] request, context in
            let plan = await backend.faults(for: route)
            if plan.latencyMilliseconds > 0 {
                try? await Task.sleep(for: .milliseconds(plan.latencyMilliseconds))
            }
            if let rejection = plan.rejection {
                await backend.record(route, outcome: String(rejection.statusCode))
                return try rejection.response(from: request, context: context)
            }
            let response: Response
            do throws(BackendRefusal) {
                response = try await work(request, context).response
            } catch {
                response = try error.response(from: request, context: context)
            }
            guard let timeout = plan.timeout else {
                await backend.record(route, outcome: String(response.status.code))
                return response
            }
            switch timeout.mode {
            case .drop:
                await backend.record(route, outcome: "dropped")
                try? await context.channel.close()
                throw ConnectionDropped()
            case .sleep:
                await backend.record(route, outcome: String(response.status.code))
                try? await Task.sleep(for: .seconds(timeout.seconds))
                return response
            }
        }
    }
}

/// Thrown after a `timeout` fault closed the connection: there is no answer to write.
struct ConnectionDropped: Error {}
