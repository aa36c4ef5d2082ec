/// A handler for the signals of one object path, run on the bus thread before any stream.
///
/// The streams of ``DBusConnection/signals(matchingAny:)`` keep wire order by funnelling every
/// signal through one consumer (an object cache), which costs a task hop and whatever that
/// consumer does per signal. A GATT notification needs none of it: it changes no state anyone
/// waits on, it only has to reach the one link that subscribed. A tap sees the signals of its
/// path first and may *consume* one (return true), which then reaches no stream at all.
///
/// A tap only sees what a match rule already lets through to this connection.
public final class SignalTap: Sendable {
    let path: String
    let id: UInt64
    private let loop: BusLoop
    private let state: ConnectionState

    init(path: String, id: UInt64, loop: BusLoop, state: ConnectionState) {
        self.path = path
        self.id = id
        self.loop = loop
        self.state = state
    }

    /// Removes the tap; signals of its path go to the streams again.
    public func cancel() {
        loop.post { [state, path, id] in state.removeTap(path: path, id: id) }
    }
}

extension DBusConnection {
    /// Runs `handler` on the bus thread for each signal from `path` (exactly that path), in wire
    /// order, from the moment the next message is dispatched: registration is queued on the bus
    /// thread ahead of any call made after this returns, so a StartNotify sent next cannot
    /// outrun it. `handler` returns true to consume the signal; it must be quick and must not
    /// block.
    public func tapSignals(path: String, handler: @escaping @Sendable (DBusMessage) -> Bool) -> SignalTap {
        let state = state
        let id = state.nextTapID.add(1, ordering: .relaxed).newValue
        loop.post { state.taps[path, default: [:]][id] = handler }
        return SignalTap(path: path, id: id, loop: loop, state: state)
    }
}
