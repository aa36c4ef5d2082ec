import NIOCore

/// Bounds what a client may send before it gets an answer: a scrape is one small GET, so
/// anything bigger than ``limit`` bytes between responses (a huge head, a body, a flood) gets
/// `431` and the connection is closed, before the HTTP decoder buffers it.
///
/// It sits in front of the decoder and sees every response go out; each response starts the
/// count again, so a keep-alive scraper is never cut off.
final class RequestSizeLimiter: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    static let response = "HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"

    private let limit: Int
    private var received = 0
    private var refused = false

    init(limit: Int) { self.limit = limit }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        received += unwrapInboundIn(data).readableBytes
        guard received <= limit else {
            refused = true
            let answer = context.channel.allocator.buffer(string: Self.response)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(answer)).whenComplete { _ in channel.close(promise: nil) }
            return
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        received = 0
        guard !refused else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        context.write(data, promise: promise)
    }
}
