import FTMS
import Synchronization

/// Holds a link's notifications back until its `.ready` event has gone out, so that whoever
/// reads a supervisor's events sees `.ready` (the machine's name, type and features) before
/// the first frame it explains.
///
/// Notifications start during the connect sequence (subscriptions come before Request
/// Control), on the thread that reads them (StartNotify's signals on the bus thread, an
/// acquired socket's datagrams on the connection's `DatagramReader`, in the daemon its event
/// loop), while `.ready` is sent from the supervisor's task once the sequence ends; without
/// the gate they overtake it. A lock, not an actor, because the sink runs on that reading
/// thread, not in the supervisor's task, and must not wait or hop. What is held is bounded: a machine
/// notifying at 4 Hz sends a handful during a connect sequence, so anything past the bound is
/// an old frame that no reader needs.
final class ReadyGate: Sendable {
    private struct State {
        var open = false
        var held: [(Characteristic, [UInt8])] = []
    }

    private let state = Mutex(State())
    private let events: SupervisorEventSender
    static let maximumHeld = 64

    init(events: SupervisorEventSender) {
        self.events = events
    }

    /// The link's sink: forwards at once when open (directly to the reader when it can take
    /// it, ``SupervisorEventSender``), else holds (the oldest go first). Once open the gate
    /// stays open, so the forwarding happens outside the lock.
    func deliver(_ characteristic: Characteristic, _ value: [UInt8]) {
        let isOpen = state.withLock { state in
            if state.open { return true }
            if state.held.count == Self.maximumHeld { state.held.removeFirst() }
            state.held.append((characteristic, value))
            return false
        }
        if isOpen { events.notify(characteristic, value) }
    }

    /// Sends `.ready`, then what was held, then opens, all under the lock, so no
    /// notification from a reading thread lands between them.
    func open(ready info: MachineInfo) {
        state.withLock { state in
            events.send(.ready(info))
            for (characteristic, value) in state.held { events.send(.notification(characteristic, value)) }
            state.held = []
            state.open = true
        }
    }
}
