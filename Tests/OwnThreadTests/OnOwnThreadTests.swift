import Foundation
import OwnThread
import Synchronization
import Testing

/// Blocking work runs beside the cooperative pool, never on it.
@Suite("On its own thread")
struct OnOwnThreadTests {
    struct Refused: Error, Equatable {}

    /// How many calls have started, and a wait (with a deadline) for all of them.
    final class Rendezvous: Sendable {
        private let started = Mutex((count: 0, gaveUp: false))
        let count: Int

        init(count: Int) { self.count = count }

        /// Blocks its thread until `count` calls are in (true), or until 20 s have passed or
        /// another call gave up (false), so calls that cannot all be in at once fail fast.
        func arriveAndWait() -> Bool {
            started.withLock { $0.count += 1 }
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                let (count, gaveUp) = started.withLock { ($0.count, $0.gaveUp) }
                if gaveUp { return false }
                if count >= self.count { return true }
                usleep(1000)
            }
            started.withLock { $0.gaveUp = true }
            return false
        }
    }

    /// Many more blocking calls than the pool has threads are all in at once: on the pool,
    /// the first few would block every thread it has and the rest would never start.
    @Test func manyBlockingCallsRunAtOnce() async {
        let rendezvous = Rendezvous(count: 64)
        let met = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<rendezvous.count {
                group.addTask { await onOwnThread { rendezvous.arriveAndWait() } }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(met == rendezvous.count)
    }

    @Test func theWorksResultAndErrorComeBack() async throws {
        #expect(await onOwnThread { 6 * 7 } == 42)
        await #expect(throws: Refused.self) { try await onOwnThread { () throws(Refused) -> Int in throw Refused() } }
    }
}
