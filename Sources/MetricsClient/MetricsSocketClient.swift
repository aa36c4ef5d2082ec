import LocalSocket
public import NIOCore
public import NIOPosix
public import Publish
public import RetryTiming

/// The metrics socket's client (docs/metrics-socket.md "Writing a reader"), for the dashboard,
/// `ftms-bridge watch`, the tests and integrators: a program links this library, not the daemon,
/// as gpsd's clients link libgps.
///
/// It connects, sends its watch request (if any), and reports every line as a
/// ``MetricsSocketEvent``, read by Publish's one envelope reader (``MetricsMessage``) and cut by
/// the sockets' one line framing (`LocalSocket.LineFramer`). When the connection ends or cannot
/// be made it waits ``Backoff``'s next delay, the jittered backoff Bluetooth and the broker
/// reconnect with, and connects again: the daemon restarts, and its readers should simply come
/// back with it. A connection that worked (the daemon said `hello`) starts the backoff over; one
/// the daemon refuses at once (its readers are full: an `error` line, then the close) does not.
public struct MetricsSocketClient: Sendable {
    /// The longest line read: the socket's lines are a few KiB, a `hello` with a full gym tens.
    public static let maximumLine = 4 << 20

    public let path: String
    /// What to ask the daemon for on each connection; nil for everything.
    public let watch: WatchFilter?
    private let backoff: Backoff
    private let lineLimit: Int
    private let group: any EventLoopGroup
    private let clock: any Clock<Duration>
    private let random: @Sendable () -> Double

    public init(
        path: String, watch: WatchFilter? = nil, backoff: Backoff = Backoff(initial: .milliseconds(250), maximum: .seconds(5)),
        lineLimit: Int = Self.maximumLine, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        clock: any Clock<Duration> = ContinuousClock(), random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.path = path
        self.watch = watch
        self.backoff = backoff
        self.lineLimit = lineLimit
        self.group = group
        self.clock = clock
        self.random = random
    }

    /// Delivers events until the task is cancelled (then it returns) or `deliver` throws (then
    /// the connection is closed and the error rethrown: how a reader that has seen enough stops).
    /// `deliver` runs on the caller's isolation, one event at a time: while it runs, the client
    /// reads no further (the daemon drops samples for a reader that falls behind, contract §7).
    public func run<Failure: Error>(
        isolation: isolated (any Actor)? = #isolation, _ deliver: (MetricsSocketEvent) async throws(Failure) -> Void
    ) async throws(Failure) {
        var backoff = self.backoff
        while !Task.isCancelled {
            let reason: MetricsSocketDisconnection
            switch await connection(deliver, greeted: { backoff.reset() }) {
            case .stopped(let failure): throw failure
            case .ended(let why): reason = why
            }
            if Task.isCancelled { return }
            let delay = backoff.next(random: random())
            try await deliver(.disconnected(reason, retryIn: delay))
            try? await clock.sleep(for: delay)
        }
    }

    /// How one connection (or one attempt at it) ended.
    private enum Ending<Failure: Error> {
        /// The peer closed, the connection failed, or it could not be made: why.
        case ended(MetricsSocketDisconnection)
        /// The caller's `deliver` threw.
        case stopped(Failure)
    }

    /// One connection: connect, send the watch, deliver each line until the peer closes, the
    /// read fails or `deliver` throws; the channel is closed however it ends. `greeted` runs at
    /// each `hello`, the sign that the daemon took this reader.
    private func connection<Failure: Error>(
        isolation: isolated (any Actor)? = #isolation, _ deliver: (MetricsSocketEvent) async throws(Failure) -> Void,
        greeted: () -> Void
    ) async -> Ending<Failure> {
        let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            channel = try await ClientBootstrap(group: group).connect(unixDomainSocketPath: path) { [lineLimit] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineFramer(limit: lineLimit)))
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        } catch {
            return .ended(.connecting(error))
        }
        func pass(_ event: MetricsSocketEvent) async -> Failure? {
            do {
                try await deliver(event)
                return nil
            } catch {
                return error
            }
        }
        do {
            return try await channel.executeThenClose { lines, requests in
                if let watch { try await requests.write(ByteBuffer(bytes: watch.requestLine)) }
                if let failure = await pass(.connected) { return .stopped(failure) }
                for try await line in lines {
                    let event: MetricsSocketEvent
                    do throws(EnvelopeError) {
                        let message = try MetricsMessage(line: line.readableBytesView)
                        if message.envelope.type == .hello { greeted() }
                        event = .message(message, line: line)
                    } catch {
                        event = .unreadable(line: line, error)
                    }
                    if let failure = await pass(event) { return .stopped(failure) }
                }
                return .ended(.closed)
            }
        } catch {
            return .ended(.reading(error))
        }
    }
}
