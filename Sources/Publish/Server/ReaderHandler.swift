import LocalSocket
import NIOCore

/// One connected reader: its watch filter, its backlog, and the rules for what it may lose. It
/// reads whole lines, behind the socket's ``LineFramer`` (a `ByteToMessageHandler`).
///
/// It lives on the server's event loop, as the server does, so the server's fan-out calls
/// ``offer(_:type:machine:)`` directly: no hop, no lock, no copy. The backlog is counted here,
/// byte for byte, from the moment a line is handed to NIO until NIO reports it written to the
/// kernel; NIO's own writability (the channel's write-buffer watermarks, set to the same soft
/// limit) is consulted as well, so whichever notices first that the reader is behind wins.
///
/// Published lines are flushed once per turn of the loop, not once each: a burst of
/// notifications read in one wake-up (machines whose clocks run together) reaches each reader
/// in one `write`, where a `write` per line cost the daemon a system call and the reader a
/// wake-up per notification. The flush is a task queued behind the jobs already waiting on the
/// loop, so it comes within the same turn, microseconds after the line.
final class ReaderHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    enum Delivery {
        case written
        /// The reader's filter does not want it, or the reader is on its way out.
        case skipped
        /// A `sample` the reader was too far behind for.
        case dropped
        /// A message the reader could not lose, with no room left: the reader was closed.
        case disconnected
    }

    private let registry: any ReaderRegistry
    private let limits: ReaderLimits
    private var context: ChannelHandlerContext?
    private var filter = WatchFilter.all
    private(set) var pendingBytes = 0
    private var closing = false
    /// A flush is queued on the loop for the lines written since the last one.
    private var flushQueued = false

    init(registry: any ReaderRegistry, limits: ReaderLimits) {
        self.registry = registry
        self.limits = limits
    }

    var closeFuture: EventLoopFuture<Void>? { context?.channel.closeFuture }

    /// This handler as the server holds it: the server is an actor, and the compiler cannot
    /// know that its executor is this handler's loop, so the handler crosses over in a box
    /// that checks, on every use, that it is used on that loop.
    private var bound: NIOLoopBound<ReaderHandler> {
        NIOLoopBound(self, eventLoop: registry.eventLoop)
    }

    // MARK: NIO's side

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        registry.attach(bound)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        closing = true
        registry.detach(bound)
        context.fireChannelInactive()
    }

    /// One whole line: a `watch` request, or the reader is told why not and closed.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        let line = unwrapInboundIn(data)
        do {
            registry.watch(try WatchRequest.parse(Array(line.readableBytesView)), for: bound)
        } catch {
            reject(error)
        }
    }

    /// A reader that shuts down its sending side (`socat`, `nc -N` at the end of their input)
    /// still wants the stream: half-closure is allowed, and the end of its input is no event.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event { return }
        context.fireUserInboundEventTriggered(event)
    }

    /// A line too long is refused like any bad input; the framer then takes nothing more (and
    /// says so for each read still coming, which is already being closed). Anything else ends
    /// the reader.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch error {
        case let tooLong as LineTooLong: reject(ReaderInputError.lineTooLong(limit: tooLong.limit))
        case ByteToMessageDecoderError.dataReceivedInErrorState(_, _): return
        default: disconnect()
        }
    }

    private func reject(_ error: any Error) {
        guard !closing else { return }
        registry.reject(bound, for: error)
    }

    // MARK: The server's side

    func setFilter(_ filter: WatchFilter) {
        self.filter = filter
    }

    /// Writes `line` if the reader wants it and can take it. O(1), no allocation but NIO's
    /// write promise: this runs once per reader per published message.
    /// Whether ``offer(_:type:machine:)`` would consider a line of `type` about `machine`
    /// (open, and its watch takes it), before anyone spends the work of making the line.
    func accepts(_ type: MessageType, machine: String?) -> Bool {
        !closing && context != nil && filter.accepts(type, machine: machine)
    }

    func offer(_ line: ByteBuffer, type: MessageType, machine: String?) -> Delivery {
        guard !closing, let context, filter.accepts(type, machine: machine) else { return .skipped }
        let backlog = pendingBytes + line.readableBytes
        if type.isDroppable, backlog > limits.soft || !context.channel.isWritable { return .dropped }
        guard backlog <= limits.hard else {
            disconnect()
            return .disconnected
        }
        write(line, context: context, flush: false)
        return .written
    }

    /// Writes a reader-local line (`hello`) whatever the backlog: it is the reader's own
    /// request, and a reader far enough behind is closed by the next published message.
    func send(_ line: ByteBuffer) {
        guard !closing, let context else { return }
        write(line, context: context)
    }

    /// Writes `line` if the kernel takes it now, then closes. Closing drops whatever NIO
    /// still holds, so an error line reaches a reader that reads, and a reader that does not
    /// read cannot keep its connection open by never taking it.
    func close(after line: ByteBuffer) {
        guard !closing, let context else { return }
        write(line, context: context)
        disconnect()
    }

    /// Closes the reader, after handing the kernel what it takes of the lines still unflushed.
    func disconnect() {
        guard !closing, let context else { return }
        closing = true
        if flushQueued { context.flush() }
        context.close(promise: nil)
    }

    /// `flush: false` (a published line): flushed by the task ``queueFlush(_:)`` queues, with
    /// every other line published in the same turn of the loop.
    private func write(_ line: ByteBuffer, context: ChannelHandlerContext, flush: Bool = true) {
        let size = line.readableBytes
        pendingBytes += size
        let promise = context.eventLoop.makePromise(of: Void.self)
        promise.futureResult.assumeIsolated().whenComplete { _ in self.pendingBytes -= size }
        if flush {
            context.writeAndFlush(wrapOutboundOut(line), promise: promise)
        } else {
            context.write(wrapOutboundOut(line), promise: promise)
            queueFlush(context)
        }
    }

    private func queueFlush(_ context: ChannelHandlerContext) {
        guard !flushQueued else { return }
        flushQueued = true
        context.eventLoop.assumeIsolated().execute {
            self.flushQueued = false
            guard !self.closing, let context = self.context else { return }
            context.flush()
        }
    }
}
