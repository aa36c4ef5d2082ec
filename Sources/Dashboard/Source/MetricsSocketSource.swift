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
                        try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
                if offline { log("dashboard: \(description): connected") }
                offline = false
                backoff = .milliseconds(250)
                await deliver(.online(gateway: gateway))
                try await channel.executeThenClose { inbound, _ in
                    var lines = LineSplitter(limit: Self.maximumLine)
                    var greeted = false
                    for try await chunk in inbound {
                        for line in try lines.split(chunk) {
                            guard let event = event(for: line, greeted: &greeted) else { continue }
                            await deliver(event)
                        }
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

    private func event(for line: [UInt8], greeted: inout Bool) -> GatewayEvent? {
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

/// Splits a byte stream into `\n`-terminated lines, refusing one longer than `limit`.
struct LineSplitter {
    struct LineTooLong: Error, CustomStringConvertible {
        let limit: Int
        var description: String { "a line longer than \(limit) bytes" }
    }

    let limit: Int
    private var pending: [UInt8] = []

    init(limit: Int) { self.limit = limit }

    mutating func split(_ chunk: ByteBuffer) throws(LineTooLong) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        chunk.withUnsafeReadableBytes { bytes in
            var start = bytes.startIndex
            for index in bytes.indices where bytes[index] == UInt8(ascii: "\n") {
                pending.append(contentsOf: bytes[start..<index])
                lines.append(pending)
                pending.removeAll(keepingCapacity: true)
                start = index + 1
            }
            pending.append(contentsOf: bytes[start...])
        }
        guard pending.count <= limit, lines.allSatisfy({ $0.count <= limit }) else { throw LineTooLong(limit: limit) }
        return lines
    }
}
