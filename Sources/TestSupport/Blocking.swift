import Foundation

/// Runs blocking code (a socket read, a child's wait, a busy watcher, a long computation) on a
/// thread of its own: on the cooperative pool it could hold one of the two threads a 2-core
/// box has, and with them the very handlers it is waiting for. A body that cannot throw needs
/// no `try`.
public func blocking<Value: Sendable, Failure: Error>(_ body: @escaping @Sendable () throws(Failure) -> Value) async throws(Failure) -> Value {
    let result: Result<Value, Failure> = await withCheckedContinuation { continuation in
        let thread = Thread {
            continuation.resume(returning: Result { () throws(Failure) -> Value in try body() })
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    return try result.get()
}
