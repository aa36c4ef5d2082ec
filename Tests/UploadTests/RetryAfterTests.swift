import Clocks
import TestSupport
import DeterministicRandom
import Foundation
import Store
import Synchronization
import Testing
@testable import Upload
import Workout

/// `Retry-After` is the backend asking the gateway to wait (contract §6): on a 503 as on a 429,
/// in seconds or as an HTTP-date read against the answer's own `Date`, capped, and ended at
/// once by an operator's `upload`. The scheduler runs on a ``ManualClock``, so each wait is
/// checked by its deadline, never by how long a test took.
@Suite("Retry-After")
struct RetryAfterTests {
    /// One generous wait for what the scheduler's task does between deadlines: with every suite
    /// running on a loaded 2-core machine, the cooperative threads can be busy for a minute.
    static let patience = Duration.seconds(180)

    /// Counts the scheduler's runs.
    final class RunCount: Sendable {
        private let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
        func add() { count.withLock { $0 += 1 } }
    }

    static func scheduler(
        _ clock: ManualClock, runs: RunCount, policy: RetryPolicy = RetryPolicy(),
        upload: @escaping @Sendable () async -> UploadOutcome
    ) -> UploadScheduler {
        UploadScheduler(
            policy: policy, idleInterval: .seconds(3600), random: SplitMix64(seed: 3), timers: clock
        ) {
            let outcome = await upload()
            runs.add()
            return outcome
        }
    }

    /// The backend answers the first batch upload with a 503 or a 429 carrying `Retry-After: 30`:
    /// the scheduler's next run is not due before 30 s, a finished session meanwhile does not
    /// bring it forward, and once the 30 s are over the session goes up, once.
    @Test(arguments: ["5xx:route=batch_upload,status=503,retry-after=30,next=1", "429:route=batch_upload,retry-after=30,next=1"])
    func aRetryAfterIsWaitedOut(fault: String) async throws {
        let (backend, gateway) = try await TestGateway.loggedIn()
        try await gateway.enqueue(1)
        try await backend.faults([fault])
        let clock = ManualClock()
        let runs = RunCount()
        let scheduler = Self.scheduler(clock, runs: runs) {
            (try? await gateway.service.uploader.run())?.outcome ?? .retry(retryAfter: nil)
        }
        let task = Task { await scheduler.run() }
        defer { task.cancel() }
        try await waitUntil("the first run and its wait", timeout: Self.patience) { runs.value == 1 && clock.nextDeadline != nil }
        #expect(try #require(clock.nextDeadline) >= .seconds(30), "retried after \(clock.nextDeadline ?? .zero)")
        #expect(try await gateway.store.counts() == QueueCounts(pending: 1))

        clock.advance(.seconds(25))
        let sleeps = clock.sleeps
        await scheduler.sessionFinished()
        try await waitUntil("the wait taken up again after the trigger", timeout: Self.patience) { clock.sleeps > sleeps && clock.nextDeadline != nil }
        #expect(runs.value == 1, "a trigger brought the retry forward")
        #expect(try #require(clock.nextDeadline) >= .seconds(30))

        clock.advance(.seconds(10))
        try await waitUntil("the retry after 30 s", timeout: Self.patience) { runs.value == 2 }
        #expect(try await gateway.store.counts() == QueueCounts(uploaded: 1))
        #expect(try await backend.storedSessions().map(\.received) == [1])
    }

    /// An HTTP-date `Retry-After` is "Date + 40 s" on the backend's clock, three years ahead of
    /// the gateway's here: read against the answer's `Date` it is 40 s, not the cap.
    @Test func anHTTPDateIsReadAgainstTheAnswersDate() async throws {
        let body = #"{"error":"maintenance"}"#
        let server = try CannedServer(answer: [
            "HTTP/1.1 503 Service Unavailable", "Date: Tue, 01 Jan 2030 00:00:00 GMT", "Retry-After: Tue, 01 Jan 2030 00:00:40 GMT",
            "Content-Type: application/json", "Content-Length: \(body.utf8.count)", "", body,
        ].joined(separator: "\r\n"))
        let directory = try TemporaryDirectory(prefix: "ftms-retry-after")
        let store = try GatewayStore(directory: directory.path)
        let now = WallClock.system.now()
        try await store.saveTokens(StoredTokens(accessToken: "access", refreshToken: "refresh", issuedAt: now, expiresAt: now.adding(seconds: 3600)))
        try await store.enqueue(TestSessions.summary(1))
        let service = SyncService(
            store: store, client: try BackendClient(baseURL: "http://127.0.0.1:\(server.port)", timeout: .seconds(120)),
            timeZone: TimeZone(identifier: "UTC") ?? .gmt)
        let report = try await service.uploader.run()
        #expect(report.outcome == .retry(retryAfter: .seconds(40)))

        let clock = ManualClock()
        let runs = RunCount()
        let scheduler = Self.scheduler(clock, runs: runs) { report.outcome }
        let task = Task { await scheduler.run() }
        defer { task.cancel() }
        try await waitUntil("the first run and its wait", timeout: Self.patience) { runs.value == 1 && clock.nextDeadline != nil }
        let deadline = try #require(clock.nextDeadline)
        #expect(deadline >= .seconds(40) && deadline <= .seconds(42), "waits \(deadline)")
    }

    /// Without a `Date` the gateway's own clock is all there is.
    @Test func anHTTPDateWithoutADateHeader() {
        let now = UTCTime(secondsSince1970: 1_767_596_400)  // 2026-01-05T07:00:00Z
        #expect(RetryAfter.parse("Mon, 05 Jan 2026 07:00:30 GMT", date: nil, now: now) == .seconds(30))
        #expect(RetryAfter.parse("Mon, 05 Jan 2026 07:00:30 GMT", date: "not a date", now: now) == .seconds(30))
        #expect(RetryAfter.parse("Mon, 05 Jan 2026 07:00:30 GMT", date: "Mon, 05 Jan 2026 07:00:00 GMT", now: UTCTime(secondsSince1970: 0)) == .seconds(30))
    }

    /// A week is taken as the cap (an hour), plus at most the base of jitter.
    @Test func aRetryAfterIsCapped() async throws {
        let clock = ManualClock()
        let runs = RunCount()
        let policy = RetryPolicy()
        let scheduler = Self.scheduler(clock, runs: runs, policy: policy) { .retry(retryAfter: .seconds(7 * 86_400)) }
        let task = Task { await scheduler.run() }
        defer { task.cancel() }
        try await waitUntil("the first run and its wait", timeout: Self.patience) { runs.value == 1 && clock.nextDeadline != nil }
        let deadline = try #require(clock.nextDeadline)
        #expect(deadline >= policy.longestRetryAfter && deadline <= policy.longestRetryAfter + policy.base, "waits \(deadline)")
    }

    /// An operator's `upload` (the control socket's command) ends a `Retry-After` wait at once,
    /// where a finished session would not.
    @Test func uploadNowEndsARetryAfterWait() async throws {
        let clock = ManualClock()
        let runs = RunCount()
        let scheduler = Self.scheduler(clock, runs: runs) { runs.value == 0 ? .retry(retryAfter: .seconds(30)) : .settled }
        let task = Task { await scheduler.run() }
        defer { task.cancel() }
        try await waitUntil("the first run and its wait", timeout: Self.patience) { runs.value == 1 && clock.nextDeadline != nil }
        await scheduler.uploadNow()
        try await waitUntil("the run the operator asked for", timeout: Self.patience) { runs.value == 2 }
        #expect(clock.now == ManualClock.Instant(offset: .zero), "no time passed")
    }
}
