import Foundation

/// Runs blocking code (a socket read, a child's wait, a busy watcher) on a thread of its own:
/// on the cooperative pool it could hold one of the two threads a 2-core box has, and with
/// them the very handlers it is waiting for.
public func blocking<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result { try body() })
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
}
