import FTMS
import Synchronization

/// The sending side of a ``MachineSupervisor``'s ``MachineSupervisor/events``, with the one way
/// past the stream: a notification handed straight to its reader.
///
/// Every event goes through the stream, in order, except a notification that arrives while
/// the reader has a direct handler (``MachineSupervisor/handleNotificationsDirectly(_:)``) and
/// has finished every event sent before it (``MachineSupervisor/eventHandled()``): nothing is
/// then waiting that it could overtake, so it goes to the handler on the thread that read it,
/// which may still refuse it (then it is sent as any other). In the daemon that thread is the
/// event loop, and the stream's way costs a Swift job per notification (the yield, the reader's
/// task resumed, a turn of the loop's task queue): little on an idle box, about a sixth of the
/// daemon's CPU per notification on a loaded one (docs/performance.md, the ride's row).
final class SupervisorEventSender: Sendable {
    /// Takes a notification on the reading thread and returns true, or returns false having
    /// done nothing.
    typealias DirectHandler = @Sendable (Characteristic, [UInt8]) -> Bool

    private struct State {
        /// Events sent and not yet reported handled by the reader.
        var unfinished = 0
        var direct: DirectHandler?
    }

    private let state = Mutex(State())
    private let continuation: AsyncStream<SupervisorEvent>.Continuation

    init(_ continuation: AsyncStream<SupervisorEvent>.Continuation) {
        self.continuation = continuation
    }

    func send(_ event: SupervisorEvent) {
        state.withLock { $0.unfinished += 1 }
        continuation.yield(event)
    }

    /// A notification: to the direct handler when nothing sent before it is unfinished and the
    /// handler takes it, else into the stream.
    func notify(_ characteristic: Characteristic, _ value: [UInt8]) {
        let direct = state.withLock { $0.unfinished == 0 ? $0.direct : nil }
        if let direct, direct(characteristic, value) { return }
        send(.notification(characteristic, value))
    }

    func finish() {
        continuation.finish()
    }

    func handleDirectly(_ handler: DirectHandler?) {
        state.withLock { $0.direct = handler }
    }

    func handled() {
        state.withLock { $0.unfinished = max(0, $0.unfinished - 1) }
    }
}
