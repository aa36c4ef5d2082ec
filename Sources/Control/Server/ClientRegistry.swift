import NIOCore
import Synchronization

/// The connections a server holds, shared by every event loop its clients live on: admission
/// against `maxClients`, and the list `close()` needs to end them all.
final class ClientRegistry: Sendable {
    enum Admission {
        case admitted
        case full
        case closed
    }

    private struct State {
        var clients: [ObjectIdentifier: any Channel] = [:]
        var closed = false
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = capacity
    }

    func admit(_ channel: any Channel) -> Admission {
        state.withLock { state in
            if state.closed { return .closed }
            guard state.clients.count < capacity else { return .full }
            state.clients[ObjectIdentifier(channel)] = channel
            return .admitted
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
            return Array(state.clients.values)
        }
        return clients.map { channel in
            channel.close(promise: nil)
            return channel.closeFuture
        }
    }
}
