package import DBus
package import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// Reads AcquireNotify's sockets on the daemon's event loop, so that a notification wakes
/// one thread instead of two.
///
/// Read on the bus thread (the binding's default), every notification woke the bus thread to
/// `recv` it and then the event loop to decode and publish it; on this box a wake-up costs
/// more than everything the daemon then does with the frame (docs/performance.md).
/// Here the socket sits in the event loop's own `epoll` and its datagrams are handed on in
/// the same turn of the loop that reads them.
///
/// Built on `NIOPipeBootstrap` (a maintained reader, where a raw `epoll` beside NIO's would
/// be ours to maintain), with one trap: NIO reads with `read(2)` and takes 0 bytes for the end
/// of the stream, but on a `SOCK_SEQPACKET` socket 0 bytes is also an *empty datagram*, which
/// BlueZ does forward (bleak #1982). So the channel reads a duplicate of the descriptor and
/// the original stays here: when the channel ends, the original says whether the peer hung
/// up (the end) or not (it was an empty datagram: it is delivered, and a new channel reads
/// on from the next datagram, which is still queued in the socket).
package struct EventLoopDatagramReader: DatagramReader {
    let loop: any EventLoop

    /// Reads on `loop`: the daemon passes the loop its tasks run on.
    package init(loop: any EventLoop) {
        self.loop = loop
    }

    package func read(
        descriptor: Int32, maximumSize: Int,
        onDatagram: @escaping @Sendable ([UInt8]) -> Void, onEnd: @escaping @Sendable (String) -> Void
    ) -> DatagramSubscription {
        let socket = EventLoopDatagramSocket(
            descriptor: descriptor, maximumSize: maximumSize, loop: loop, onDatagram: onDatagram, onEnd: onEnd)
        loop.execute { socket.start() }
        return DatagramSubscription(close: { [loop] done in
            loop.execute { socket.end("cancelled").whenSuccess(done) }
        })
    }
}

/// One acquired socket read on the event loop (see ``EventLoopDatagramReader``).
///
/// Event loop only, except the constants: that is what makes `@unchecked Sendable` true.
final class EventLoopDatagramSocket: @unchecked Sendable {
    private let descriptor: Int32
    private let maximumSize: Int
    private let loop: any EventLoop
    private let onDatagram: @Sendable ([UInt8]) -> Void
    private let onEnd: @Sendable (String) -> Void
    /// The channel reading the duplicate now, if any.
    private var channel: (any Channel)?
    /// The bootstrap of a channel on a new duplicate, until that channel is set up or failed.
    private var starting: EventLoopFuture<any Channel>?
    /// Whether the bootstrap under way has made its channel, which then owns the duplicate.
    private var made = false
    private var ended = false

    init(
        descriptor: Int32, maximumSize: Int, loop: any EventLoop,
        onDatagram: @escaping @Sendable ([UInt8]) -> Void, onEnd: @escaping @Sendable (String) -> Void
    ) {
        self.descriptor = descriptor
        self.maximumSize = max(maximumSize, 1)
        self.loop = loop
        self.onDatagram = onDatagram
        self.onEnd = onEnd
    }

    /// Starts a channel on a duplicate of the descriptor.
    func start() {
        guard !ended else { return }
        let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else {
            end("cannot read the socket (dup failed, errno \(errno))")
            return
        }
        // A loop that cannot read descriptors (an EmbeddedEventLoop) makes NIOPipeBootstrap(group:)
        // trap; asked this way, it is an end like any other.
        guard let bootstrap = NIOPipeBootstrap(validatingGroup: loop) else {
            _ = Glibc.close(copy)
            end("cannot read the socket (its event loop cannot read descriptors)")
            return
        }
        made = false
        let started = bootstrap
            // One datagram per read, and a spare byte so that a longer one shows as cut.
            .channelOption(ChannelOptions.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: maximumSize + 1))
            .channelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(DatagramHandler(socket: self))
                }
            }
            .takingOwnershipOfDescriptor(input: copy)
        starting = started
        started.whenComplete { [self] result in
            starting = nil
            guard case .failure(let error) = result else { return }
            // A failure after NIO made the channel closed the duplicate with it; before that,
            // NIO gave it back, and it is still ours to close.
            if !made { _ = Glibc.close(copy) }
            end("cannot read the socket (\(error))")
        }
    }

    /// The bootstrap's channel exists (it is being set up): it reads, and owns, the duplicate.
    /// Never closed from here: closing a channel during its setup fails the setup, and ``end(_:)``
    /// closes it once the setup is through.
    fileprivate func opened(_ channel: any Channel) {
        made = true
        self.channel = channel
    }

    fileprivate func received(_ buffer: ByteBuffer) {
        guard !ended else { return }
        onDatagram(buffer.getBytes(at: buffer.readerIndex, length: min(buffer.readableBytes, maximumSize)) ?? [])
    }

    /// The channel on the duplicate ended: a failed read, the peer's hang-up, or an empty datagram.
    fileprivate func channelEnded(_ channel: any Channel, failure: String?) {
        if self.channel === channel { self.channel = nil }
        guard !ended else { return }
        if let failure {
            end("read failed (\(failure))")
        } else if peerHungUp(descriptor), queuedBytes(descriptor) == 0 {
            // Nothing queued behind the 0: the end. (Something queued: the 0 was an empty
            // datagram sent before the hang-up, and what follows it is read first.)
            end("the peer hung up")
        } else {
            onDatagram([])
            start()
        }
    }

    /// Stops reading and closes the socket (giving it back to BlueZ), and says why, once. The
    /// future says true once the channel's duplicate is closed too (BlueZ has the hang-up only
    /// when no copy is left open) when this ended an open socket, false when it had ended before.
    @discardableResult
    func end(_ reason: String) -> EventLoopFuture<Bool> {
        guard !ended else { return loop.makeSucceededFuture(false) }
        ended = true
        var closing: [EventLoopFuture<Void>] = []
        if let starting {
            // Still being set up: closed once it is (a failed setup has closed it already).
            closing.append(starting.flatMap { $0.close() })
        } else if let channel {
            closing.append(channel.close())
        }
        channel = nil
        _ = Glibc.close(descriptor)
        onEnd(reason)
        return EventLoopFuture.whenAllComplete(closing, on: loop).map { _ in true }
    }
}

/// Hands each datagram the channel reads to its ``EventLoopDatagramSocket``.
final class DatagramHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let socket: EventLoopDatagramSocket
    private var failure: String?

    init(socket: EventLoopDatagramSocket) {
        self.socket = socket
    }

    func handlerAdded(context: ChannelHandlerContext) {
        socket.opened(context.channel)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        socket.received(unwrapInboundIn(data))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        failure = "\(error)"
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        socket.channelEnded(context.channel, failure: failure)
    }
}
