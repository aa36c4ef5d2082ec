import Hummingbird

/// The whole HTTP surface: logging outermost (it sees the final status), then the error shape,
/// then the API and admin routes.
enum BackendRouter {
    static func make(backend: Backend, configuration: BackendConfiguration, log: @escaping @Sendable (String) -> Void) -> Router<BackendRequestContext> {
        let router = Router(context: BackendRequestContext.self)
        if configuration.logRequests { router.add(middleware: RequestLogMiddleware(log: log)) }
        router.add(middleware: ErrorBodyMiddleware())
        APIRoutes(backend: backend, maxBodyBytes: configuration.maxBodyBytes).register(on: router)
        if configuration.adminEnabled { AdminRoutes(backend: backend, limit: configuration.maxBodyBytes).register(on: router) }
        return router
    }
}
