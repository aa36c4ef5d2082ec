public import Clocks
package import JSON
import FTMS
import LocalSocket
public import NIOCore
import NIOPosix

/// The metrics socket (contract §7): NDJSON envelopes, numbered daemon-wide, fanned out to every
/// local reader, none of which can slow the daemon or the others.
///
/// An actor whose executor is the event loop its readers' channels live on. Its state (the
/// `seq`, the resync state, the readers) is the actor's, so the compiler checks every access,
/// and yet a publish reaches every reader's channel without a hop or a lock: the fan-out and
/// the I/O share one thread. Each message is encoded once into one `ByteBuffer`; every reader gets the
/// same storage.
///
/// `hello` and `error` lines carry the current `seq` (the last one published, 0 before any)
/// instead of taking a new one. They go to one reader each, so taking a number would put a
/// gap in every other reader's stream; repeating the last one tells the reader exactly where
/// its stream starts: the next published line is `seq + 1`.
public actor MetricsServer {
    /// The loop the server and all its readers run on. A NIOPosix loop: the actor's isolation
    /// relies on it being a `SerialExecutor` that can check it is current.
    public nonisolated let eventLoop: any EventLoop
    private nonisolated let executor: any SerialExecutor
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    private let configuration: MetricsServerConfiguration
    private let clock: WallClock
    private let placement: SocketPlacement
    private var identity: FileIdentity?
    private var listener: (any Channel)?
    private var closed = false

    private var seq: UInt64 = 0
    private var resync = ResyncState()
    private var readers: [ObjectIdentifier: NIOLoopBound<ReaderHandler>] = [:]
    private var counters = PublishMetrics()
    private var scratch = JSONBuffer(capacity: 2048)
    private let allocator = ByteBufferAllocator()

    private init(configuration: MetricsServerConfiguration, placement: SocketPlacement, eventLoop: any EventLoop, clock: WallClock) {
        self.configuration = configuration
        self.placement = placement
        self.eventLoop = eventLoop
        executor = eventLoop.executor
        self.clock = clock
    }

    /// Listens on `configuration.path`: makes its directory, replaces a stale socket file,
    /// refuses a live one, and sets mode 0660 and the configured group. `clock` gives the
    /// envelopes' `timestamp` (replay's is the capture's time).
    public static func listen(
        _ configuration: MetricsServerConfiguration,
        on eventLoop: any EventLoop,
        clock: WallClock
    ) async throws -> MetricsServer {
        let group = try configuration.group.map { (name) throws(LocalSocketError) in try GroupLookup.id(named: name) }
        let placement = try SocketPlacement(path: configuration.path)
        try placement.prepare()
        let server = MetricsServer(configuration: configuration, placement: placement, eventLoop: eventLoop, clock: clock)
        try await server.bind(group: group)
        return server
    }

    /// Binds in a private directory and moves the socket onto its path with its group and mode
    /// already set (``SocketPlacement``): no reader outside the group can ever connect.
    private func bind(group: gid_t?) async throws {
        let staged = try placement.makeStagingDirectory()
        let limits = configuration.limits
        let channel: any Channel
        do {
            channel = try await ServerBootstrap(group: eventLoop)
                .serverChannelOption(.backlog, value: 256)
                .childChannelOption(.allowRemoteHalfClosure, value: true)
                .childChannelOption(.writeBufferWaterMark, value: .init(low: limits.soft / 2, high: limits.soft))
                .childChannelInitializer { [self] channel in
                    channel.eventLoop.makeCompletedFuture {
                        let pipeline = channel.pipeline.syncOperations
                        try pipeline.addHandler(ByteToMessageHandler(LineFramer(limit: MetricsServerConfiguration.maximumLineLength)))
                        try pipeline.addHandler(ReaderHandler(registry: self, limits: limits))
                    }
                }
                .bind(unixDomainSocketPath: staged.socketPath)
                .get()
        } catch {
            staged.discard()
            throw LocalSocketError.system(operation: "listen on", path: configuration.path, errno: (error as? IOError)?.errnoCode ?? EIO)
        }
        do {
            identity = try placement.publish(staged, mode: MetricsServerConfiguration.mode, group: group)
        } catch {
            try? await channel.close()
            staged.discard()
            throw error
        }
        listener = channel
    }

    /// Stops listening, closes every reader and removes the socket file.
    public func close() async {
        guard !closed else { return }
        closed = true
        if let listener { try? await listener.close() }
        listener = nil
        let closing = readers.values.compactMap(\.value.closeFuture)
        for reader in readers.values { reader.value.disconnect() }
        try? await EventLoopFuture.andAllComplete(closing, on: eventLoop).get()
        if let identity { placement.remove(identity: identity) }
    }

    public var metrics: PublishMetrics { counters }

    /// The `seq` of the last published message; 0 before the first.
    public var lastSeq: UInt64 { seq }

    // MARK: Publishing

    /// Publishes one message to every reader that wants it: the one way in, for every type,
    /// every caller and every thread.
    ///
    /// Never waits on a reader: each gets the line, loses it (a `sample`, when it is over its
    /// soft limit) or is disconnected (anything else, over its hard limit).
    ///
    /// `payload` is made only if someone will read it: a reader whose watch takes `type` from
    /// `machine`, the resync state (`machine`, `session_state`: a reader that connects later
    /// needs them), or the caller's second transport (`forwarding`, the daemon's MQTT
    /// publisher), which then gets the envelope's bytes without the newline, so the broker
    /// carries exactly the socket's JSON, `seq` and `timestamp`. With none of them the message
    /// still takes its `seq` (``PublishMetrics/messagesPublished`` counts every message), and a
    /// gym whose socket nobody watches pays no JSON per notification.
    ///
    /// A caller already on the server's loop (the daemon's machine workers, which run on it)
    /// is served there and then, under the actor's isolation, which the loop guarantees by
    /// running one job at a time. Awaiting the actor instead would cost two jobs per message,
    /// one onto the loop and one back.
    @discardableResult
    public nonisolated(nonsending) func publish(
        _ type: MessageType, machine: String? = nil, sessionID: String? = nil, forwarding: Bool = false,
        payload: @autoclosure @Sendable () -> JSONPayload
    ) async throws(PublishError) -> PublishedLine {
        try await publish(type, machine: machine, sessionID: sessionID, forwarding: forwarding) { json in
            let payload = payload()
            payload.bytes.withUnsafeBufferPointer { json.append(contentsOf: $0) }
            return payload.state
        }
    }

    /// The same, with the payload written straight into the line by `writing` (one of
    /// ``MetricsPayloads``' writers): the daemon's path, on which a notification's JSON is
    /// written once, where the readers' shared buffer is filled from. `state` is the payload's
    /// top-level `"state"` string (`machine`, `session_state`), which the resync state reads.
    @discardableResult
    package nonisolated(nonsending) func publish(
        _ type: MessageType, machine: String? = nil, sessionID: String? = nil, state: String? = nil, forwarding: Bool = false,
        writing payload: @Sendable (inout JSONBuffer) -> Void
    ) async throws(PublishError) -> PublishedLine {
        try await publish(type, machine: machine, sessionID: sessionID, forwarding: forwarding) { json in
            payload(&json)
            return state
        }
    }

    /// Both ways in: `payload` writes the payload and returns its `"state"`.
    private nonisolated(nonsending) func publish(
        _ type: MessageType, machine: String?, sessionID: String?, forwarding: Bool,
        payload: @Sendable (inout JSONBuffer) -> String?
    ) async throws(PublishError) -> PublishedLine {
        if let done = publishIfOnLoop(type, machine: machine, sessionID: sessionID, forwarding: forwarding, payload: payload) {
            return try done.get()
        }
        return try await publishHere(type, machine: machine, sessionID: sessionID, forwarding: forwarding, payload: payload)
    }

    /// The same, from synchronous code on the server's loop (a notification handled where it
    /// was read): nil off the loop, or when the line could not be published.
    @discardableResult
    package nonisolated func publishNow(
        _ type: MessageType, machine: String?, sessionID: String?, forwarding: Bool, writing payload: @Sendable (inout JSONBuffer) -> Void
    ) -> PublishedLine? {
        try? publishIfOnLoop(type, machine: machine, sessionID: sessionID, forwarding: forwarding) { json in
            payload(&json)
            return nil
        }?.get()
    }

    /// `assumeIsolated` is for synchronous code only, hence this step; nil off the loop.
    private nonisolated func publishIfOnLoop(
        _ type: MessageType, machine: String?, sessionID: String?, forwarding: Bool, payload: @Sendable (inout JSONBuffer) -> String?
    ) -> Result<PublishedLine, PublishError>? {
        guard eventLoop.inEventLoop else { return nil }
        return assumeIsolated { server in
            Result { () throws(PublishError) in
                try server.publishHere(type, machine: machine, sessionID: sessionID, forwarding: forwarding, payload: payload, onLoop: true)
            }
        }
    }

    private func publishHere(
        _ type: MessageType, machine: String?, sessionID: String?, forwarding: Bool, payload: @Sendable (inout JSONBuffer) -> String?,
        onLoop: Bool = false
    ) throws(PublishError) -> PublishedLine {
        guard !type.isReaderLocal else { throw .readerLocalType(type) }
        seq += 1
        counters.messagesPublished = seq
        if !onLoop { counters.messagesPublishedOffLoop += 1 }
        guard forwarding || type.isKeptForResync || readers.values.contains(where: { $0.value.accepts(type, machine: machine) }) else {
            return PublishedLine(seq: seq, envelope: nil)
        }
        let header = Envelope(type: type, machine: machine, sessionID: sessionID, timestamp: now(), seq: seq)
        var state: String?
        let line = encode(header) { json in
            let start = json.count
            state = payload(&json)
            assert(Self.isObject(json, from: start), "a payload written into the line is not one JSON object: \(json.string)")
        }
        resync.record(type, machine: machine, sessionID: sessionID, state: state, line: line)
        for reader in readers.values {
            switch reader.value.offer(line, type: type, machine: machine) {
            case .written, .skipped: break
            case .dropped: counters.messagesDropped += 1
            case .disconnected: counters.readersDisconnectedSlow += 1
            }
        }
        let envelope = forwarding ? line.getBytes(at: line.readerIndex, length: line.readableBytes - 1) : nil
        return PublishedLine(seq: seq, envelope: envelope)
    }

    /// Whether the bytes of `json` from `start` on are one JSON object (debug builds check each
    /// written payload, as ``JSONPayload/init(written:state:)`` does).
    private static func isObject(_ json: borrowing JSONBuffer, from start: Int) -> Bool {
        json.withUnsafeBytes { bytes in (try? JSONPayload(validating: bytes[start...])) != nil }
    }

    // MARK: Readers (called by ReaderHandler, on the loop)

    private func attachHere(_ reader: NIOLoopBound<ReaderHandler>) {
        guard !closed else {
            reader.value.disconnect()
            return
        }
        guard readers.count < configuration.limits.readers else {
            counters.readersRefusedFull += 1
            refuse(reader, "the metrics socket has its \(configuration.limits.readers) readers (metrics_socket.max_clients): try again later")
            return
        }
        readers[ObjectIdentifier(reader.value)] = reader
        counters.readersAccepted += 1
        counters.readersConnected = readers.count
        reader.value.send(hello(for: .all))
    }

    private func detachHere(_ reader: NIOLoopBound<ReaderHandler>) {
        guard readers.removeValue(forKey: ObjectIdentifier(reader.value)) != nil else { return }
        counters.readersConnected = readers.count
    }

    /// A reader narrowed (or widened) its stream: the new filter applies from the next
    /// published message, and a fresh `hello`, filtered the same way, marks the point.
    private func watchHere(_ filter: WatchFilter, for reader: NIOLoopBound<ReaderHandler>) {
        reader.value.setFilter(filter)
        reader.value.send(hello(for: filter))
    }

    private func rejectHere(_ reader: NIOLoopBound<ReaderHandler>, for error: any Error) {
        counters.readersDisconnectedBadInput += 1
        refuse(reader, (error as? ReaderInputError)?.description ?? "\(error)")
    }

    /// One `error` line with `message`, then the reader is closed.
    private func refuse(_ reader: NIOLoopBound<ReaderHandler>, _ message: String) {
        let header = Envelope(type: .error, machine: nil, sessionID: nil, timestamp: now(), seq: seq)
        reader.value.close(after: encode(header) { json in
            json.append(UInt8(ascii: "{"))
            json.appendKey("message", first: true)
            json.appendString(message)
            json.append(UInt8(ascii: "}"))
        })
    }

    // MARK: Encoding

    private func now() -> UnixMilliseconds {
        UnixMilliseconds(clock.now())
    }

    private func hello(for filter: WatchFilter) -> ByteBuffer {
        let header = Envelope(type: .hello, machine: nil, sessionID: nil, timestamp: now(), seq: seq)
        return encode(header) { [resync, seq, configuration] json in
            json.append(UInt8(ascii: "{"))
            json.appendKey("daemonVersion", first: true)
            json.appendString(configuration.daemonVersion)
            json.appendKey("lastSeq")
            json.appendInteger(seq)
            resync.writeMembers(into: &json, filter: filter)
            json.appendKey("watch")
            filter.writeJSON(into: &json)
            json.append(UInt8(ascii: "}"))
        }
    }

    /// One line: the header, the payload `body` writes, `}` and `\n`, in a buffer of its own
    /// that every reader then shares.
    private func encode(_ header: Envelope, body: (inout JSONBuffer) -> Void) -> ByteBuffer {
        scratch.removeAll()
        header.writeHeader(into: &scratch)
        body(&scratch)
        scratch.append("}\n")
        return scratch.withUnsafeBytes { bytes in
            var line = allocator.buffer(capacity: bytes.count)
            line.writeBytes(bytes)
            return line
        }
    }
}

/// The server is its readers' registry: each call comes from a reader's handler on the
/// server's own loop, so it runs under the actor's isolation there and then.
extension MetricsServer: ReaderRegistry {
    nonisolated func attach(_ reader: NIOLoopBound<ReaderHandler>) {
        assumeIsolated { $0.attachHere(reader) }
    }

    nonisolated func detach(_ reader: NIOLoopBound<ReaderHandler>) {
        assumeIsolated { $0.detachHere(reader) }
    }

    nonisolated func watch(_ filter: WatchFilter, for reader: NIOLoopBound<ReaderHandler>) {
        assumeIsolated { $0.watchHere(filter, for: reader) }
    }

    nonisolated func reject(_ reader: NIOLoopBound<ReaderHandler>, for error: any Error) {
        assumeIsolated { $0.rejectHere(reader, for: error) }
    }
}
