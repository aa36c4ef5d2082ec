import NIOCore
import Synchronization

/// The connections a server holds, shared by every event loop its clients live on: admission
/// against `capacity`, and the list `close()` needs to end them all.
///
/// A full registry does not simply turn newcomers away: clients that connect and then send
/// nothing (or half a line) would lock the operator out until their idle timeout. So a
/// newcomer takes the place of the client that has kept the server waiting longest; only
/// when every client has a request being handled is the newcomer refused.
final class ClientRegistry: Sendable {
    enum Admission {
        case admitted
        /// Admitted in place of `evicted`, which is no longer counted and is to be closed.
        case admittedInPlaceOf(any Channel)
        case full
        case closed
    }

    private struct Client {
        let channel: any Channel
        /// Since when the server waits on this client (for a request, or for it to take an
        /// answer); nil while a request of its is being handled.
        var waitingSince: NIODeadline?
    }

    private struct State {
        var clients: [ObjectIdentifier: Client] = [:]
        var closed = false
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = capacity
    }

    func admit(_ channel: any Channel, now: NIODeadline = .now()) -> Admission {
        state.withLock { state in
            if state.closed { return .closed }
            let newcomer = Client(channel: channel, waitingSince: now)
            guard state.clients.count >= capacity else {
                state.clients[ObjectIdentifier(channel)] = newcomer
                return .admitted
            }
            let idlest = state.clients.compactMap { key, client in client.waitingSince.map { (key, $0) } }.min { $0.1 < $1.1 }
            guard let (key, _) = idlest, let evicted = state.clients.removeValue(forKey: key) else { return .full }
            state.clients[ObjectIdentifier(channel)] = newcomer
            return .admittedInPlaceOf(evicted.channel)
        }
    }

    /// The server now waits on `channel`'s client (`since` a moment), or, with nil, works
    /// for it.
    func waiting(_ channel: any Channel, since: NIODeadline?) {
        state.withLock { state in
            state.clients[ObjectIdentifier(channel)]?.waitingSince = since
        }
    }

    func leave(_ channel: any Channel) {
        _ = state.withLock { $0.clients.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    var count: Int { state.withLock { $0.clients.count } }

    /// Admits nobody from now on and closes everyone; the futures complete as they close.
    func closeAll() -> [EventLoopFuture<Void>] {
        let clients = state.withLock { state in
            state.closed = true
            return state.clients.values.map(\.channel)
        }
        return clients.map { channel in
            channel.close(promise: nil)
            return channel.closeFuture
        }
    }
}
