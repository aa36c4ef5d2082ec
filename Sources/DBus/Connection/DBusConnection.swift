import Clocks
import CDBus
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A private connection to a message bus, driven by its own ``BusLoop`` thread.
///
/// Every method may be called from any task. Calls never block a thread: they are posted to
/// the loop, sent with an explicit timeout and resumed when the reply, an error, the timeout
/// or the loss of the bus is dispatched.
public final class DBusConnection: Sendable {
    /// Where the system bus is: `DBUS_SYSTEM_BUS_ADDRESS` when set (tests point it at a
    /// private dbus-daemon), else the standard socket.
    public static func systemBusAddress(environment: [String: String]) -> String {
        environment["DBUS_SYSTEM_BUS_ADDRESS"] ?? "unix:path=/run/dbus/system_bus_socket"
    }

    /// This connection's unique name on the bus (`:1.42`).
    public let uniqueName: String
    public let address: String
    let loop: BusLoop
    let state: ConnectionState
    /// Where ``readDatagrams(from:maximumSize:onDatagram:onEnd:)`` reads; `nil`: the bus thread.
    let datagramReader: (any DatagramReader)?
    private let connected = Atomic<Bool>(true)

    private init(address: String, uniqueName: String, loop: BusLoop, state: ConnectionState, datagramReader: (any DatagramReader)?) {
        self.address = address
        self.uniqueName = uniqueName
        self.loop = loop
        self.state = state
        self.datagramReader = datagramReader
    }

    /// Connects and registers on the bus at `address`. Handed-over datagram sockets
    /// (AcquireNotify's) are read by `datagramReader` when one is given (the daemon's reads
    /// them on its event loop), else on the bus thread.
    public static func connect(address: String, datagramReader: (any DatagramReader)? = nil) async throws -> DBusConnection {
        try Validation.checkString(address, what: "bus address")
        let loop = try BusLoop()
        try loop.start()
        let state = ConnectionState()
        let uniqueName: String = try await withCheckedThrowingContinuation { continuation in
            loop.post {
                var error = DBusErrorStorage()
                defer { error.free() }
                guard let connection = address.withCString({ dbus_connection_open_private($0, &error.raw) }) else {
                    loop.stop()
                    continuation.resume(throwing: DBusError.connectFailed(address: address, reason: error.message))
                    return
                }
                dbus_connection_set_exit_on_disconnect(connection, 0)
                guard dbus_bus_register(connection, &error.raw) != 0, let name = dbus_bus_get_unique_name(connection) else {
                    dbus_connection_close(connection)
                    dbus_connection_unref(connection)
                    loop.stop()
                    continuation.resume(throwing: DBusError.connectFailed(address: address, reason: error.message))
                    return
                }
                loop.attach(connection)
                continuation.resume(returning: String(cString: name))
            }
        }
        let bus = DBusConnection(address: address, uniqueName: uniqueName, loop: loop, state: state, datagramReader: datagramReader)
        loop.post { [loop, weak bus] in
            loop.onMessage = { message in bus?.handle(message) ?? false }
        }
        return bus
    }

    deinit {
        close()
    }

    public var isConnected: Bool { connected.load(ordering: .acquiring) }

    /// Closes the connection: outstanding calls fail with ``DBusError/disconnected``, signal
    /// streams finish, and the loop thread ends.
    public func close() {
        guard connected.compareExchange(expected: true, desired: false, ordering: .acquiringAndReleasing).exchanged else { return }
        let state = state
        loop.post { [loop] in
            state.failAll()
            if let connection = loop.connection {
                loop.detach()
                dbus_connection_close(connection)
                dbus_connection_unref(connection)
            }
        }
        loop.stop()
    }

    // MARK: Method calls

    /// Calls a method and returns the reply's arguments.
    ///
    /// `cancellable`: cancelling the calling task abandons the call at once (libdbus forgets
    /// it; a late reply is dropped) and throws `CancellationError`. For calls that may wait
    /// long on purpose, as `Device1.Connect` to a machine that is gone (up to its timeout): a
    /// daemon told to stop must not wait that out. Off by default, because a call made by a
    /// task that is already cancelled (the last `Disconnect` of a stopping supervisor) must
    /// still go out.
    public func call(
        destination: String, path: String, interface: String, member: String,
        arguments: [DBusValue] = [], timeout: Duration = .seconds(25), cancellable: Bool = false
    ) async throws -> [DBusValue] {
        let message = try Self.methodCall(destination: destination, path: path, interface: interface, member: member)
        do {
            try MessageWriter.append(arguments, to: message)
        } catch {
            dbus_message_unref(message)
            throw error
        }
        let milliseconds = Int32(clamping: timeout.milliseconds)
        let unchecked = UncheckedMessage(message)
        let handle = cancellable ? PendingCallHandle() : nil
        return try await withTaskCancellationHandler {
            try await sendAwaitingReply(unchecked, member: member, milliseconds: milliseconds, handle: handle)
        } onCancel: {
            guard let handle else { return }
            loop.post { [loop] in handle.cancel(connected: loop.connection != nil) }
        }
    }

    private func sendAwaitingReply(_ unchecked: UncheckedMessage, member: String, milliseconds: Int32, handle: PendingCallHandle?) async throws -> [DBusValue] {
        let state = state
        return try await withCheckedThrowingContinuation { continuation in
            loop.post { [loop] in
                defer { dbus_message_unref(unchecked.pointer) }
                guard let connection = loop.connection else {
                    continuation.resume(throwing: DBusError.disconnected)
                    return
                }
                if handle?.cancelled == true {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                var pending: OpaquePointer? = nil
                guard dbus_connection_send_with_reply(connection, unchecked.pointer, &pending, max(1, milliseconds)) != 0,
                    let pending
                else {
                    continuation.resume(throwing: DBusError.disconnected)
                    return
                }
                let waiter = ReplyWaiter(member: member, continuation: continuation)
                state.outstanding[ObjectIdentifier(waiter)] = waiter
                let context = Unmanaged.passRetained(waiter).toOpaque()
                dbus_pending_call_set_notify(
                    pending,
                    { pending, context in
                        guard let pending, let context else { return }
                        let waiter = Unmanaged<ReplyWaiter>.fromOpaque(context).takeUnretainedValue()
                        if let reply = dbus_pending_call_steal_reply(pending) {
                            waiter.complete(with: DBusMessage(copying: reply))
                            dbus_message_unref(reply)
                        } else {
                            waiter.fail(DBusError.disconnected)
                        }
                        waiter.onComplete?()
                        dbus_pending_call_unref(pending)
                    },
                    context,
                    { context in
                        guard let context else { return }
                        Unmanaged<ReplyWaiter>.fromOpaque(context).release()
                    })
                waiter.onComplete = { [weak waiter] in
                    handle?.pending = nil
                    guard let waiter else { return }
                    state.outstanding[ObjectIdentifier(waiter)] = nil
                }
                handle?.track(pending, waiter)
            }
        }
    }

    /// Calls without waiting for a reply; errors are not reported.
    public func send(
        destination: String, path: String, interface: String, member: String, arguments: [DBusValue] = []
    ) throws {
        let message = try Self.methodCall(destination: destination, path: path, interface: interface, member: member)
        dbus_message_set_no_reply(message, 1)
        try post(message, arguments: arguments)
    }

    /// Number of calls waiting for a reply: a soak test watches it for leaks.
    public func outstandingCalls() async -> Int {
        let state = state
        return await withCheckedContinuation { continuation in
            loop.post { continuation.resume(returning: state.outstanding.count) }
        }
    }

    // MARK: Signals

    /// Emits a signal from `path`.
    public func emitSignal(path: String, interface: String, member: String, arguments: [DBusValue] = []) throws {
        try Validation.objectPath(path)
        try Validation.interface(interface)
        try Validation.member(member)
        guard let message = path.withCString({ path in
            interface.withCString { interface in member.withCString { dbus_message_new_signal(path, interface, $0) } }
        }) else { throw DBusError.invalidArgument("cannot create signal \(member)") }
        try post(message, arguments: arguments)
    }

    /// Signals matching `rule`, in wire order, from the moment this returns. The match is
    /// registered with the bus before returning and removed when the stream is dropped.
    public func signals(matching rule: MatchRule) async throws -> AsyncStream<DBusMessage> {
        try await signals(matchingAny: [rule])
    }

    /// Signals matching any of `rules` in one stream, so their relative wire order survives
    /// (an object cache must see InterfacesAdded before the PropertiesChanged that follows).
    public func signals(matchingAny rules: [MatchRule]) async throws -> AsyncStream<DBusMessage> {
        for rule in rules { try rule.validate() }
        guard isConnected else { throw DBusError.disconnected }
        let (stream, continuation) = AsyncStream.makeStream(of: DBusMessage.self)
        let state = state
        let id = await withCheckedContinuation { (registered: CheckedContinuation<UInt64, Never>) in
            loop.post {
                registered.resume(returning: state.subscribe(rules: rules, continuation: continuation))
            }
        }
        for rule in rules {
            _ = try await call(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "AddMatch", arguments: [.string(rule.text)], timeout: .seconds(5))
        }
        continuation.onTermination = { [weak self, loop] _ in
            loop.post { state.subscribers[id] = nil }
            for rule in rules {
                try? self?.send(
                    destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                    member: "RemoveMatch", arguments: [.string(rule.text)])
            }
        }
        return stream
    }

    /// Puts a marker into every signal stream *after* everything already dispatched.
    ///
    /// A reply resumes its caller directly, while signals travel through streams their
    /// consumers drain at their own pace; a consumer that sees this marker has seen every
    /// signal that arrived before the reply the caller already holds. BlueZ sends
    /// `Connected=true` before the Connect reply, and this is how a cache proves it applied it.
    public func sendBarrier(_ id: UInt64) {
        let state = state
        loop.post {
            let marker = DBusMessage(kind: .signal, path: "/org/freedesktop/DBus/Local", interface: Self.barrierInterface,
                                     member: "Barrier", arguments: [.uint64(id)])
            for subscriber in state.subscribers.values { subscriber.continuation.yield(marker) }
        }
    }

    /// The interface of ``sendBarrier(_:)``'s marker; no bus peer can send it.
    public static let barrierInterface = "org.freedesktop.DBus.Local"

    // MARK: Names and objects

    /// Takes a well-known name; false when another connection owns it.
    public func requestName(_ name: String) async throws -> Bool {
        try Validation.busName(name)
        let reply = try await call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "RequestName", arguments: [.string(name), .uint32(4)], timeout: .seconds(5))
        return reply.first?.integer == 1
    }

    /// The unique name that owns `name`, or nil when nobody does.
    public func nameOwner(_ name: String) async throws -> String? {
        do {
            let reply = try await call(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "GetNameOwner", arguments: [.string(name)], timeout: .seconds(5))
            return reply.first?.string
        } catch DBusError.remote(name: "org.freedesktop.DBus.Error.NameHasNoOwner", _) {
            return nil
        }
    }

    /// Serves method calls to `path` (and, with `subtree`, everything below it) with
    /// `handler`, which runs on the bus thread and must answer through the call's replier.
    public func export(path: String, subtree: Bool = false, handler: @escaping @Sendable (DBusMethodCall) -> Void) throws {
        try Validation.objectPath(path)
        let state = state
        loop.post { state.exports[path] = Export(subtree: subtree, handler: handler) }
    }

    public func unexport(path: String) {
        let state = state
        loop.post { state.exports[path] = nil }
    }

    /// A new method call message (owned by the caller), every name validated first.
    private static func methodCall(destination: String, path: String, interface: String, member: String) throws -> OpaquePointer {
        try Validation.busName(destination)
        try Validation.objectPath(path)
        try Validation.interface(interface)
        try Validation.member(member)
        guard let message = destination.withCString({ destination in
            path.withCString { path in
                interface.withCString { interface in
                    member.withCString { dbus_message_new_method_call(destination, path, interface, $0) }
                }
            }
        }) else { throw DBusError.invalidArgument("cannot create a call to \(member)") }
        return message
    }

    // MARK: Loop thread

    private func post(_ message: OpaquePointer, arguments: [DBusValue]) throws {
        do {
            try MessageWriter.append(arguments, to: message)
        } catch {
            dbus_message_unref(message)
            throw error
        }
        let unchecked = UncheckedMessage(message)
        loop.post { [loop] in
            if let connection = loop.connection { dbus_connection_send(connection, unchecked.pointer, nil) }
            dbus_message_unref(unchecked.pointer)
        }
    }

    /// Routes one incoming message. Loop thread.
    private func handle(_ raw: OpaquePointer) -> Bool {
        switch dbus_message_get_type(raw) {
        case DBUS_MESSAGE_TYPE_SIGNAL:
            let message = DBusMessage(copying: raw)
            if message.interface == "org.freedesktop.DBus.Local", message.member == "Disconnected" {
                connected.store(false, ordering: .releasing)
                state.failAll()
                return true
            }
            if let taps = state.taps[message.path ?? ""] {
                var consumed = false
                for tap in taps.values where tap(message) { consumed = true }
                if consumed { return true }
            }
            state.deliver(message)
            return false
        case DBUS_MESSAGE_TYPE_METHOD_CALL:
            let message = DBusMessage(copying: raw)
            guard let export = state.export(for: message.path ?? "/") else { return false }
            export.handler(DBusMethodCall(message: message, replier: DBusMethodReplier(retaining: raw, loop: loop)))
            return true
        default:
            return false
        }
    }
}

/// State only the loop thread touches.
final class ConnectionState: @unchecked Sendable {
    var outstanding: [ObjectIdentifier: ReplyWaiter] = [:]
    var subscribers: [UInt64: (rules: [MatchRule], continuation: AsyncStream<DBusMessage>.Continuation)] = [:]
    var exports: [String: Export] = [:]
    /// Signal taps by exact path, then id (see ``SignalTap``).
    var taps: [String: [UInt64: @Sendable (DBusMessage) -> Bool]] = [:]
    /// The one field touched off the loop thread: ids are handed out where a tap is made.
    let nextTapID = Atomic<UInt64>(0)
    private var nextSubscriber: UInt64 = 0

    func subscribe(rules: [MatchRule], continuation: AsyncStream<DBusMessage>.Continuation) -> UInt64 {
        nextSubscriber += 1
        subscribers[nextSubscriber] = (rules, continuation)
        return nextSubscriber
    }

    func removeTap(path: String, id: UInt64) {
        taps[path]?[id] = nil
        if taps[path]?.isEmpty == true { taps[path] = nil }
    }

    func deliver(_ message: DBusMessage) {
        for subscriber in subscribers.values where subscriber.rules.contains(where: { $0.matches(message) }) {
            subscriber.continuation.yield(message)
        }
    }

    func export(for path: String) -> Export? {
        if let exact = exports[path] { return exact }
        var candidate = path
        while let slash = candidate.lastIndex(of: "/"), candidate != "/" {
            candidate = slash == candidate.startIndex ? "/" : String(candidate[..<slash])
            if let export = exports[candidate], export.subtree { return export }
        }
        return nil
    }

    /// The bus is gone or closing: nobody may wait forever.
    func failAll() {
        for waiter in outstanding.values { waiter.fail(DBusError.disconnected) }
        outstanding.removeAll()
        for subscriber in subscribers.values { subscriber.continuation.finish() }
        subscribers.removeAll()
        taps.removeAll()
    }
}

struct Export {
    let subtree: Bool
    let handler: @Sendable (DBusMethodCall) -> Void
}

/// One call's continuation, resumed exactly once. Loop thread.
final class ReplyWaiter: @unchecked Sendable {
    let member: String
    private var continuation: CheckedContinuation<[DBusValue], any Error>?
    var onComplete: (() -> Void)?

    init(member: String, continuation: CheckedContinuation<[DBusValue], any Error>) {
        self.member = member
        self.continuation = continuation
    }

    func complete(with reply: DBusMessage) {
        if reply.kind == .error {
            var error = reply.asError
            if case .timeout = error { error = .timeout(member: member) }
            fail(error)
        } else {
            continuation?.resume(returning: reply.arguments)
            continuation = nil
        }
    }

    func fail(_ error: any Error) {
        continuation?.resume(throwing: error)
        continuation = nil
    }
}

/// A cancellable call's libdbus pending call, touched only on the bus thread: the cancel
/// handler posts there, so it never races the reply's notify callback.
final class PendingCallHandle: @unchecked Sendable {
    var cancelled = false
    /// Set while the call waits for its reply; the notify callback clears it.
    var pending: OpaquePointer?
    private weak var waiter: ReplyWaiter?

    func track(_ pending: OpaquePointer, _ waiter: ReplyWaiter) {
        self.pending = pending
        self.waiter = waiter
    }

    /// Forgets the call in libdbus (no notify follows) and throws `CancellationError` to the
    /// caller. `connected` false: the connection's close already failed every waiter.
    func cancel(connected: Bool) {
        cancelled = true
        guard connected, let pending else { return }
        self.pending = nil
        dbus_pending_call_cancel(pending)
        waiter?.fail(CancellationError())
        waiter?.onComplete?()
        dbus_pending_call_unref(pending)
    }
}

/// A `DBusError` from libdbus, freed after use.
struct DBusErrorStorage {
    var raw = CDBus.DBusError()

    init() { dbus_error_init(&raw) }

    var message: String {
        var copy = raw
        guard dbus_error_is_set(&copy) != 0, let text = raw.message else { return "unknown error" }
        return String(cString: text)
    }

    mutating func free() { dbus_error_free(&raw) }
}
