import LocalSocket
import NIOCore

/// One client of the control socket, on its channel's event loop, behind the socket's
/// ``LineFramer`` (a `ByteToMessageHandler`): it reads whole request lines.
///
/// Requests are answered strictly one after another: the next line is not even parsed until
/// the previous answer has been handed to the kernel. That gives the order the protocol
/// promises, and backpressure in both directions: a client that does not read its answers
/// stops being read from (reading pauses once ``ControlServerConfiguration/maximumQueuedRequests``
/// lines wait), so no client can make the daemon buffer without bound.
///
/// The idle timer runs whenever the connection waits on the client (for a request, or for
/// it to take an answer) and is stopped while the handler works, so a slow Control Point
/// write never times its own client out. Only a whole request (or an answer taken) starts it
/// again: a client trickling a line that never ends is as idle as a silent one. While it runs,
/// the ``ClientRegistry`` knows since when, so a newcomer to a full socket can take the place
/// of the client that has kept the server waiting longest.
final class ControlConnection: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// What waits to be answered: a request line, or the end of a line too long.
    private enum Pending {
        case line(ByteBuffer)
        case tooLong
    }

    private let handler: any ControlHandler
    private let registry: ClientRegistry
    private let configuration: ControlServerConfiguration
    private var queue = CircularBuffer<Pending>()
    private var context: ChannelHandlerContext?
    private var idleTimer: Scheduled<Void>?
    private var admitted = false
    /// The handler is working on a request of this connection.
    private var handling = false
    /// An answer is on its way to the kernel.
    private var writing = false
    /// Nothing more will be read: the client closed its side, or sent a line too long.
    private var inputEnded = false
    private var closing = false

    init(handler: any ControlHandler, registry: ClientRegistry, configuration: ControlServerConfiguration) {
        self.handler = handler
        self.registry = registry
        self.configuration = configuration
    }

    // MARK: NIO's side

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        idleTimer?.cancel()
        self.context = nil
    }

    /// Sent to a client's pipeline when a newcomer takes its place.
    struct Evicted: Sendable {}

    func channelActive(context: ChannelHandlerContext) {
        switch registry.admit(context.channel) {
        case .admitted:
            admitted = true
            armIdleTimer()
            context.read()
        case .admittedInPlaceOf(let evicted):
            admitted = true
            evicted.pipeline.fireUserInboundEventTriggered(Evicted())
            armIdleTimer()
            context.read()
        case .full:
            inputEnded = true
            let message = "the control socket has all the clients it takes (\(registry.capacity)); try again shortly"
            send(.failure(.busy, message), id: nil, thenClose: true)
        case .closed:
            close()
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        closing = true
        idleTimer?.cancel()
        if admitted { registry.leave(context.channel) }
        context.fireChannelInactive()
    }

    /// One whole line. A line the framer cuts from what is left when the channel goes
    /// inactive has nobody to answer it, and is dropped.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing, !inputEnded, context.channel.isActive else { return }
        queue.append(.line(unwrapInboundIn(data)))
        armIdleTimer()
        pump()
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        readMoreIfRoom()
    }

    /// Half-closure is allowed: a client that sends its requests and shuts down its sending
    /// side still gets every answer before the connection closes (the framer has delivered an
    /// unterminated last line by the time this event arrives).
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is Evicted { return evicted() }
        guard case ChannelEvent.inputClosed = event else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        inputEnded = true
        pump()
    }

    /// A line too long is answered after the lines before it; the framer takes no more input
    /// after it (and says so for every read that still comes). Any other error ends the client.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch error {
        case is LineTooLong:
            guard !inputEnded else { return }
            queue.append(.tooLong)
            inputEnded = true
            pump()
        case ByteToMessageDecoderError.dataReceivedInErrorState(_, _):
            return
        default:
            close()
        }
    }

    // MARK: Requests, one at a time

    private func pump() {
        guard !closing, !handling, !writing else { return }
        while let piece = queue.popFirst() {
            switch piece {
            case .tooLong:
                let message = "request line longer than \(configuration.maximumLineLength) bytes; closing"
                send(.failure(.lineTooLong, message), id: nil, thenClose: true)
                return
            case .line(let bytes) where bytes.readableBytesView.allSatisfy({ $0 == 0x20 || $0 == 0x09 }):
                continue
            case .line(let bytes):
                let line = RequestLine(Array(bytes.readableBytesView))
                switch line.request {
                case .success(let request): dispatch(request, id: line.id)
                case .failure(let error): send(.failure(.badRequest, error.description), id: line.id)
                }
                return
            }
        }
        if inputEnded { close() } else { readMoreIfRoom() }
    }

    private func dispatch(_ request: ControlRequest, id: ControlRequestID?) {
        guard let context else { return }
        handling = true
        idleTimer?.cancel()
        registry.waiting(context.channel, since: nil)
        let handler = self.handler
        context.eventLoop.makeFutureWithTask { await handler.handle(request) }
            .assumeIsolated()
            .whenComplete { result in
                self.handling = false
                switch result {
                case .success(let response): self.send(response, id: id)
                case .failure(let error): self.send(.failure(.internalError, "\(error)"), id: id)
                }
            }
    }

    private func send(_ response: ControlResponse, id: ControlRequestID?, thenClose: Bool = false) {
        guard !closing, let context else { return }
        writing = true
        let promise = context.eventLoop.makePromise(of: Void.self)
        promise.futureResult.assumeIsolated().whenComplete { result in
            self.writing = false
            guard case .success = result, !thenClose else {
                self.close()
                return
            }
            self.armIdleTimer()
            self.pump()
        }
        let line = context.channel.allocator.buffer(string: response.line(id: id))
        context.writeAndFlush(wrapOutboundOut(line), promise: promise)
        armIdleTimer()
    }

    private func readMoreIfRoom() {
        guard !closing, !inputEnded, admitted, queue.count < configuration.maximumQueuedRequests, let context else { return }
        context.read()
    }

    // MARK: Idle and close

    private func armIdleTimer() {
        idleTimer?.cancel()
        idleTimer = nil
        guard !closing, !handling, let context else { return }
        registry.waiting(context.channel, since: .now())
        idleTimer = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(configuration.idleTimeout)) {
            self.idleTimedOut()
        }
    }

    /// A newcomer took this client's place (it had kept the server waiting longest): it is
    /// told so and closed, or, if a request of its got under way meanwhile, closed after that
    /// answer.
    private func evicted() {
        admitted = false
        guard !closing, !inputEnded else { return }
        inputEnded = true
        queue.removeAll()
        guard !handling, !writing else { return }
        let message = "closed to make room for another client: the control socket takes \(registry.capacity) at once, and this one sent no request for the longest"
        send(.failure(.timeout, message), id: nil, thenClose: true)
    }

    /// A client that stopped reading is closed as it is; one that is simply quiet is told why.
    private func idleTimedOut() {
        guard !closing, !handling else { return }
        if writing {
            close()
        } else {
            inputEnded = true
            send(.failure(.timeout, "no request for \(configuration.idleTimeout); closing"), id: nil, thenClose: true)
        }
    }

    private func close() {
        guard !closing, let context else { return }
        closing = true
        idleTimer?.cancel()
        context.close(promise: nil)
    }
}
