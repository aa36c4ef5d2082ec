import NIOCore
import NIOPosix
import Synchronization

/// A TCP client that sends exactly the bytes it is given and keeps everything it receives: a
/// browser for the parts of HTTP the tests look at, a rude client for the rest.
final class RawClient: Sendable {
    let channel: any Channel
    private let received: Received

    final class Received: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let text = Mutex("")
        let closed = Mutex(false)

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            let chunk = String(decoding: buffer.readableBytesView, as: UTF8.self)
            text.withLock { $0 += chunk }
        }

        func channelInactive(context: ChannelHandlerContext) {
            closed.withLock { $0 = true }
        }
    }

    private init(channel: any Channel, received: Received) {
        self.channel = channel
        self.received = received
    }

    /// Connects to 127.0.0.1:`port`. A `stuck` client never reads: the kernel's buffers fill
    /// and then the server's writes to it stop completing.
    static func connect(port: Int, group: any EventLoopGroup, stuck: Bool = false) async throws -> RawClient {
        let received = Received()
        let channel = try await ClientBootstrap(group: group)
            .channelOption(.autoRead, value: !stuck)
            .channelOption(.socketOption(.so_rcvbuf), value: stuck ? 4096 : 1 << 18)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(received) }
            }
            .connect(host: "127.0.0.1", port: port)
            .get()
        return RawClient(channel: channel, received: received)
    }

    func send(_ text: String) async throws {
        try await channel.writeAndFlush(ByteBuffer(string: text))
    }

    func get(_ path: String) async throws {
        try await send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
    }

    var text: String { received.text.withLock { $0 } }
    var isClosed: Bool { received.closed.withLock { $0 } }

    /// The `data:` of every event named `name` received so far.
    func events(_ name: String) -> [String] {
        // Chunked transfer framing puts `\r\n` around each event; Swift treats `\r\n` as one
        // Character, so split on scalars.
        text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { String(String.UnicodeScalarView($0)) }
            .split(separator: "").compactMap { block in
            let lines = Array(block)
            guard let nameLine = lines.last(where: { $0.hasPrefix("event: ") }), nameLine.dropFirst(7) == name,
                  let data = lines.first(where: { $0.hasPrefix("data: ") })
            else { return nil }
            return String(data.dropFirst(6))
        }
    }

    func close() async {
        try? await channel.close()
    }
}
