public import NIOCore
public import Publish
import Synchronization

/// One browser's outgoing queue: the only place the hub puts frames for it, bounded so that a
/// browser that stops reading costs at most ``ReaderLimits/hard`` bytes and never makes the hub
/// wait.
///
/// The metrics socket's rule (docs/metrics-socket.md, *Slow readers*), with one difference: a
/// browser past the hard limit is not closed but resynced. Its queue is dropped and the next
/// thing it is sent is a fresh snapshot, which the page applies as a reload would; an
/// `EventSource` reconnecting would cost the same and lose more.
public final class ClientMailbox: Sendable {
    public enum Item: Sendable, Equatable {
        case frame(ByteBuffer)
        /// The queue overflowed: send a snapshot instead of what was lost.
        case resync
    }

    private struct State {
        var queue: [ByteBuffer] = []
        var head = 0
        var bytes = 0
        var resync = false
        var closed = false
        var dropped = 0
        var resyncs = 0
        var waiter: CheckedContinuation<Item?, Never>?
    }

    private let limits: ReaderLimits
    private let state = Mutex(State())

    public init(limits: ReaderLimits) {
        self.limits = limits
    }

    /// Bytes queued and not yet taken by ``next()``.
    public var queuedBytes: Int { state.withLock { $0.bytes } }
    /// Live frames dropped past the soft limit, and resyncs past the hard one.
    public var losses: (dropped: Int, resyncs: Int) { state.withLock { ($0.dropped, $0.resyncs) } }

    /// Queues `frame`, or drops it (a `live` one past the soft limit), or, past the hard limit,
    /// drops the whole queue for a resync. Never waits.
    public func offer(_ frame: ByteBuffer, live: Bool) {
        let waiter: CheckedContinuation<Item?, Never>? = state.withLock { state in
            guard !state.closed, !state.resync else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            let size = frame.readableBytes
            if live, state.bytes + size > limits.soft {
                state.dropped += 1
            } else if state.bytes + size > limits.hard {
                state.queue.removeAll()
                state.head = 0
                state.bytes = 0
                state.resync = true
                state.resyncs += 1
            } else {
                state.queue.append(frame)
                state.bytes += size
            }
            return nil
        }
        waiter?.resume(returning: .frame(frame))
    }

    /// The next thing to send, waiting for one; nil once closed (or the task is cancelled).
    public func next() async -> Item? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Item?, Never>) in
                let ready: Item?? = state.withLock { state in
                    if state.closed { return .some(nil) }
                    if state.resync {
                        state.resync = false
                        return .some(.resync)
                    }
                    if state.head < state.queue.count {
                        let frame = state.queue[state.head]
                        state.head += 1
                        state.bytes -= frame.readableBytes
                        if state.head == state.queue.count {
                            state.queue.removeAll(keepingCapacity: true)
                            state.head = 0
                        }
                        return .some(.frame(frame))
                    }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            close()
        }
    }

    /// Ends the mailbox: a waiting ``next()`` returns nil, and so does every later one.
    public func close() {
        let waiter = state.withLock { state in
            state.closed = true
            state.queue.removeAll()
            state.bytes = 0
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }
}
