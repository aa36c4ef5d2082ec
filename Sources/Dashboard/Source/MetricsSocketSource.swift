import LocalSocket
public import NIOCore
public import NIOPosix

/// One gateway's metrics socket (docs/metrics-socket.md) as a ``DashboardSource``: the `hello`
/// that opens every connection becomes a ``GatewayEvent/snapshot(gateway:machines:sessions:seq:)``
/// and every later line a ``GatewayEvent/message(gateway:_:)``.
///
/// It reconnects forever with a doubling backoff (capped at ``maximumBackoff``), because the
/// daemon restarts and the dashboard should simply come back with it. A line that is not an
/// envelope is skipped with one log line; a line over ``maximumLine`` bytes ends the connection
/// (the socket's own lines are a few KiB; a `hello` with a full gym is tens).
public struct MetricsSocketSource: DashboardSource {
    public static let maximumLine = 4 << 20
    public static let maximumBackoff = Duration.seconds(5)

    public let path: String
    public let gateway: String
    private let group: any EventLoopGroup
    private let clock: any Clock<Duration>
    private let log: @Sendable (String) -> Void

    public init(
        path: String, gateway: String, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        clock: any Clock<Duration> = ContinuousClock(), log: @escaping @Sendable (String) -> Void
    ) {
        self.path = path
        self.gateway = gateway
        self.group = group
        self.clock = clock
        self.log = log
    }

    public var description: String { "metrics socket \(path) (gateway \(gateway))" }

    public func run(_ deliver: @escaping @Sendable (GatewayEvent) async -> Void) async {
        var backoff = Duration.milliseconds(250)
        var offline = false
        while !Task.isCancelled {
            let reason: String
            do {
                let channel = try await ClientBootstrap(group: group).connect(unixDomainSocketPath: path) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineFramer(limit: Self.maximumLine)))
                        return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
                if offline { log("dashboard: \(description): connected") }
                offline = false
                backoff = .milliseconds(250)
                await deliver(.online(gateway: gateway))
                try await channel.executeThenClose { lines, _ in
                    var greeted = false
                    for try await line in lines {
                        guard let event = event(for: line.readableBytesView, greeted: &greeted) else { continue }
                        await deliver(event)
                    }
                }
                reason = "the gateway closed the stream"
            } catch {
                reason = "\(error)"
            }
            if Task.isCancelled { return }
            if !offline {
                log("dashboard: \(description): \(reason); reconnecting")
                await deliver(.offline(gateway: gateway, reason: reason))
                offline = true
            }
            try? await clock.sleep(for: backoff)
            backoff = min(backoff * 2, Self.maximumBackoff)
        }
    }

    private func event(for line: ByteBufferView, greeted: inout Bool) -> GatewayEvent? {
        let message: FloorMessage
        do {
            message = try FloorMessage(line: line)
        } catch {
            log("dashboard: \(description): skipped \(error)")
            return nil
        }
        if message.type == "hello" {
            greeted = true
            return GatewayEvent.snapshot(gateway: gateway, hello: message)
        }
        return greeted ? .message(gateway: gateway, message) : nil
    }
}
