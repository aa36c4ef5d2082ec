package import LocalSocket
package import NIOCore
import NIOPosix

/// The control socket (contract §7): newline-delimited JSON requests from the CLI, each answered
/// by the daemon's ``ControlHandler`` on one line, in order, on a socket only its owner can use.
///
/// ``listen(_:handler:on:)`` binds through ``SocketPlacement``, so the file is never reachable
/// with a wider mode than configured; a stale file is replaced, a live daemon refused.
package actor ControlServer {
    package nonisolated let path: String
    private let placement: SocketPlacement
    private let identity: FileIdentity
    private let registry: ClientRegistry
    private var listener: (any Channel)?

    private init(placement: SocketPlacement, identity: FileIdentity, registry: ClientRegistry, listener: any Channel) {
        path = placement.path
        self.placement = placement
        self.identity = identity
        self.registry = registry
        self.listener = listener
    }

    /// Listens on `configuration.path` and answers every request through `handler`. Clients
    /// may live on any loop of `group`.
    package static func listen(
        _ configuration: ControlServerConfiguration,
        handler: any ControlHandler,
        on group: any EventLoopGroup
    ) async throws(LocalSocketError) -> ControlServer {
        try configuration.validate()
        let placement: SocketPlacement
        let staged: StagedSocket
        placement = try SocketPlacement(path: configuration.path)
        try placement.prepare()
        staged = try placement.makeStagingDirectory()
        let registry = ClientRegistry(capacity: configuration.maxClients)
        let listener: any Channel
        do {
            listener = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 128)
                .childChannelOption(.autoRead, value: false)
                .childChannelOption(.allowRemoteHalfClosure, value: true)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let pipeline = channel.pipeline.syncOperations
                        try pipeline.addHandler(ByteToMessageHandler(LineFramer(limit: configuration.maximumLineLength)))
                        try pipeline.addHandler(ControlConnection(handler: handler, registry: registry, configuration: configuration))
                    }
                }
                .bind(unixDomainSocketPath: staged.socketPath)
                .get()
        } catch {
            staged.discard()
            throw .system(operation: "listen on", path: staged.socketPath, errno: (error as? IOError)?.errnoCode ?? EIO)
        }
        do {
            let identity = try placement.publish(staged, mode: configuration.mode)
            return ControlServer(placement: placement, identity: identity, registry: registry, listener: listener)
        } catch {
            try? await listener.close()
            staged.discard()
            throw error
        }
    }

    /// Clients connected now.
    package nonisolated var connectedClients: Int { registry.count }

    /// Stops listening, closes every client (answers in flight are dropped; handler calls run
    /// to their end) and removes the socket file, if it is still this server's.
    package func close() async {
        guard let listener else { return }
        self.listener = nil
        try? await listener.close()
        for closed in registry.closeAll() { try? await closed.get() }
        placement.remove(identity: identity)
    }
}
