import TestSupport
import NIOCore
import NIOPosix
import Synchronization

/// A reader of the metrics socket over a real Unix socket: every line it receives, in order,
/// and whether the server closed it. Waiting polls, which keeps the helper simple and is
/// plenty for tests that wait milliseconds.
final class TestReader: Sendable {
    private struct State {
        var lines: [String] = []
        var consumed = 0
        var raw: [UInt8] = []
        var partialLineStart = 0
        var closed = false
    }

    private let state = Mutex(State())
    let channel: any Channel

    private init(channel: any Channel) {
        self.channel = channel
    }

    /// Connects, with the collector in the pipeline before the channel is active, so the
    /// `hello` the server sends at once is not missed.
    static func connect(_ path: String, on group: any EventLoopGroup) async throws -> TestReader {
        let sink = Sink()
        let channel = try await ClientBootstrap(group: group)
            .channelOption(.allowRemoteHalfClosure, value: true)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(LineCollector(sink: sink)) }
            }
            .connect(unixDomainSocketPath: path)
            .get()
        let reader = TestReader(channel: channel)
        sink.attach(reader)
        return reader
    }

    fileprivate func received(_ bytes: some Sequence<UInt8>) {
        state.withLock { state in
            let from = state.raw.count
            state.raw += bytes
            for index in from..<state.raw.count where state.raw[index] == 0x0A {
                state.lines.append(String(decoding: state.raw[state.partialLineStart..<index], as: UTF8.self))
                state.partialLineStart = index + 1
            }
        }
    }

    fileprivate func didClose() {
        state.withLock { $0.closed = true }
    }

    /// Every byte received so far.
    var rawBytes: [UInt8] { state.withLock { $0.raw } }

    /// The next line not yet returned.
    func line(timeout: Duration = .seconds(20)) async throws -> String {
        try await poll("a line", timeout: timeout) { state in
            guard state.consumed < state.lines.count else { return nil }
            state.consumed += 1
            return state.lines[state.consumed - 1]
        }
    }

    /// The next `count` lines.
    func lines(_ count: Int, timeout: Duration = .seconds(20)) async throws -> [String] {
        var result: [String] = []
        for _ in 0..<count { result.append(try await line(timeout: timeout)) }
        return result
    }

    /// Waits until the server has closed the connection.
    func waitClosed(timeout: Duration = .seconds(20)) async throws {
        _ = try await poll("the server to close", timeout: timeout) { $0.closed ? true : nil }
    }

    /// Lines received but not yet returned, without waiting.
    var unread: [String] {
        state.withLock { Array($0.lines[$0.consumed...]) }
    }

    func send(_ text: String) async throws {
        try await send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(ByteBuffer(bytes: bytes)).get()
    }

    func close() async {
        try? await channel.close()
    }

    private func poll<T: Sendable>(_ what: String, timeout: Duration, _ take: (inout State) -> T?) async throws -> T {
        try await waitFor(what, timeout: timeout, every: .milliseconds(2)) { state.withLock { take(&$0) } }
    }
}

/// Holds what arrives before ``TestReader`` exists (the connect future completes after the
/// channel is active) and hands it over once it does.
private final class Sink: Sendable {
    private struct State {
        var reader: TestReader?
        var early: [UInt8] = []
        var closed = false
    }

    private let state = Mutex(State())

    /// Forwarding happens under the lock, so early and later bytes cannot swap places.
    func attach(_ reader: TestReader) {
        state.withLock { state in
            state.reader = reader
            reader.received(state.early)
            if state.closed { reader.didClose() }
        }
    }

    func received(_ bytes: ByteBuffer) {
        state.withLock { state in
            if let reader = state.reader {
                reader.received(bytes.readableBytesView)
            } else {
                state.early += bytes.readableBytesView
            }
        }
    }

    func didClose() {
        state.withLock { state in
            state.closed = true
            state.reader?.didClose()
        }
    }
}

private final class LineCollector: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let sink: Sink

    init(sink: Sink) {
        self.sink = sink
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        sink.received(unwrapInboundIn(data))
    }

    func channelInactive(context: ChannelHandlerContext) {
        sink.didClose()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event { sink.didClose() }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        sink.didClose()
        context.close(promise: nil)
    }
}
