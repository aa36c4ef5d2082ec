import TestSupport
import DeterministicRandom
import Synchronization
import Testing
import Upload
import Workout

/// When the daemon uploads: at start-up, after each finished session, on a backoff timer
/// with jitter, honouring `Retry-After` (contract §6).
@Suite("Upload scheduling")
struct SchedulerTests {
    /// Records when each run started and answers from a script.
    final class Runs: Sendable {
        private let state = Mutex<[ContinuousClock.Instant]>([])
        let outcomes: [UploadOutcome]

        init(_ outcomes: [UploadOutcome]) { self.outcomes = outcomes }

        var starts: [ContinuousClock.Instant] { state.withLock { $0 } }

        func next() -> UploadOutcome {
            state.withLock { starts in
                starts.append(.now)
                return outcomes[min(starts.count - 1, outcomes.count - 1)]
            }
        }

        /// Generous: other suites running alongside can hold the few cooperative threads for
        /// seconds, and a slow machine is not what these tests are about.
        func wait(for count: Int, within limit: Duration = .seconds(60)) async throws {
            try await waitUntil("\(count) runs (\(starts.count) so far)", timeout: limit) { starts.count >= count }
        }
    }

    final class Gate: Sendable {
        private let state = Mutex(false)
        var isOpen: Bool { state.withLock { $0 } }
        func open() { state.withLock { $0 = true } }
    }

    func scheduler(_ runs: Runs, policy: RetryPolicy = RetryPolicy(), idle: Duration = .seconds(3600)) -> UploadScheduler {
        UploadScheduler(policy: policy, idleInterval: idle, random: SplitMix64(seed: 3)) { runs.next() }
    }

    @Test func uploadsAtStartUpAndAfterEachFinishedSession() async throws {
        let runs = Runs([.settled])
        let scheduler = scheduler(runs)
        let task = Task { await scheduler.run() }
        try await runs.wait(for: 1)
        try await Task.sleep(for: .milliseconds(50))
        #expect(runs.starts.count == 1, "nothing runs again with nothing to do")
        await scheduler.sessionFinished()
        try await runs.wait(for: 2)
        await scheduler.sessionFinished()
        try await runs.wait(for: 3)
        task.cancel()
        await task.value
        #expect(await scheduler.delays == [.seconds(3600), .seconds(3600), .seconds(3600)])
    }

    /// Sessions finishing during a run are coalesced into one run after it.
    @Test func triggersDuringARunAreCoalesced() async throws {
        let runs = Runs([.settled])
        let gate = Gate()
        let scheduler = UploadScheduler(idleInterval: .seconds(3600)) {
            while !gate.isOpen { try? await Task.sleep(for: .milliseconds(2)) }
            return runs.next()
        }
        let task = Task { await scheduler.run() }
        try await Task.sleep(for: .milliseconds(20))
        for _ in 0..<5 { await scheduler.sessionFinished() }
        gate.open()
        try await runs.wait(for: 2)
        try await Task.sleep(for: .milliseconds(50))
        #expect(runs.starts.count == 2)
        task.cancel()
        await task.value
    }

    /// Failures back off exponentially with full jitter, up to the cap.
    @Test func failuresBackOffWithJitterUpToTheCap() async throws {
        let policy = RetryPolicy(base: .milliseconds(4), cap: .milliseconds(32))
        let runs = Runs([.retry(retryAfter: nil)])
        let scheduler = scheduler(runs, policy: policy)
        let task = Task { await scheduler.run() }
        try await runs.wait(for: 12)
        task.cancel()
        await task.value
        let delays = await scheduler.delays
        for (index, delay) in delays.enumerated() {
            #expect(delay >= .zero && delay <= policy.ceiling(afterFailures: index + 1), "delay \(index + 1): \(delay)")
        }
        #expect(Set(delays).count > delays.count / 2, "jittered, not fixed")
        #expect(delays.suffix(4).allSatisfy { $0 <= .milliseconds(32) })
    }

    /// A run stopped by `Retry-After` waits that long, even when a session finishes meanwhile.
    @Test func retryAfterHoldsEvenAgainstTriggers() async throws {
        let runs = Runs([.retry(retryAfter: .milliseconds(300)), .settled])
        let scheduler = scheduler(runs, policy: RetryPolicy(base: .milliseconds(1)))
        let task = Task { await scheduler.run() }
        try await runs.wait(for: 1)
        await scheduler.sessionFinished()
        try await runs.wait(for: 2)
        task.cancel()
        await task.value
        let gap = runs.starts[1] - runs.starts[0]
        #expect(gap >= .milliseconds(300), "ran again after \(gap)")
    }

    /// Blocked (login required): looked at again at the idle interval, no backoff growth.
    @Test func blockedRunsWaitTheIdleInterval() async throws {
        let runs = Runs([.blocked])
        let scheduler = scheduler(runs, idle: .milliseconds(20))
        let task = Task { await scheduler.run() }
        try await runs.wait(for: 4)
        task.cancel()
        await task.value
        #expect(await scheduler.delays.allSatisfy { $0 == .milliseconds(20) })
    }

    /// The idle wait is an hour: only the cancellation can end it before the group's
    /// timeout, and nothing runs again.
    @Test func cancellationEndsALongWait() async throws {
        let runs = Runs([.settled])
        let scheduler = scheduler(runs)
        let task = Task { await scheduler.run() }
        try await runs.wait(for: 1)
        task.cancel()
        await task.value
        #expect(runs.starts.count == 1)
        #expect(await scheduler.delays == [.seconds(3600)])
    }

    @Test func backoffKnownAnswers() {
        let policy = RetryPolicy(base: .seconds(2), cap: .seconds(900))
        #expect((1...11).map { policy.ceiling(afterFailures: $0) } == [2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900].map { Duration.seconds($0) })
        var random = SplitMix64(seed: 1)
        for failures in 1...20 {
            let delay = policy.delay(afterFailures: failures, retryAfter: nil, using: &random)
            #expect(delay >= .zero && delay <= policy.ceiling(afterFailures: failures))
            let honoured = policy.delay(afterFailures: failures, retryAfter: .seconds(30), using: &random)
            #expect(honoured >= .seconds(30) && honoured <= .seconds(32))
        }
        #expect(policy.delay(afterFailures: 1, retryAfter: .seconds(86_400 * 7), using: &random) <= .seconds(3602))
    }
}
