import ServiceLifecycle

/// Holds the sockets bound before READY=1 and closes them last: the group shuts services
/// down in reverse order, so readers still see the sessions the fleet checkpoints and
/// finishes on its way out.
package struct SocketsService: Service {
    package let close: @Sendable () async -> Void

    package init(close: @escaping @Sendable () async -> Void) {
        self.close = close
    }

    package func run() async throws {
        try? await gracefulShutdown()
        await close()
    }
}
