import Foundation

/// Runs blocking socket code on a thread of its own: on the cooperative pool it could hold
/// the very threads the server's handler needs to answer it.
func blocking<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result { try body() })
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
}
