import Foundation
import Store
import Testing
import Upload
import Workout

/// SolidFocus's Batch Upload Procedure against the reference backend as a real process.
@Suite("Batch upload")
struct BatchUploadTests {

    /// Uploads `count` sessions and checks the batch sizes, that the backend holds each
    /// exactly once, that the store agrees, and that the stats were settled.
    func uploadsInBatches(_ count: Int, expecting sizes: [Int]) async throws {
        let (backend, gateway) = try await TestGateway.loggedIn()
        let summaries = try await gateway.enqueue(count)
        let report = try await gateway.service.uploader.run()
        #expect(report.batches.map(\.size) == sizes)
        #expect(report.batches.allSatisfy { $0.failure == nil && $0.accepted == $0.size })
        #expect(report.succeeded)
        let stored = try await backend.storedSessions()
        #expect(stored.map(\.id).sorted() == summaries.map(\.sessionID).sorted())
        #expect(stored.allSatisfy { $0.received == 1 })
        #expect(try await gateway.store.counts() == QueueCounts(pending: 0, uploaded: count, dead: 0))
        let expected = WorkoutStats(summaries: summaries, timeZone: TimeZone(identifier: "UTC") ?? .gmt)
        #expect(report.stats == .agreed(expected))
        #expect(try await gateway.store.storedStats()?.stats == expected)
        #expect(try await gateway.store.lastUpload()?.succeeded == true)
    }

    @Test func twentyOneGoAsTwentyAndOne() async throws {
        try await uploadsInBatches(21, expecting: [20, 1])
    }

    @Test func fortyFiveGoAsTwentyTwentyAndFive() async throws {
        try await uploadsInBatches(45, expecting: [20, 20, 5])
    }

    /// The batches go oldest first by `started_at`, whatever order they were stored in.
    @Test func oldestFirst() async throws {
        let (backend, gateway) = try await TestGateway.loggedIn()
        var summaries = (0..<30).map { TestSessions.summary($0) }
        summaries.reverse()
        try await gateway.store.enqueue(summaries)
        try await gateway.service.uploader.run()
        let arrival = try await backend.admin("GET", "/_admin/sessions")["sessions"] as? [[String: Any]] ?? []
        let order = arrival.sorted { ($0["first_received_at"] as? String ?? "") < ($1["first_received_at"] as? String ?? "") }
        let firstBatch = Set(summaries.suffix(20).map(\.sessionID))
        #expect(Set(order.prefix(20).compactMap { $0["session_id"] as? String }) == firstBatch)
    }

    /// Sessions the backend already holds come back in `duplicate_count` and count as uploaded.
    @Test func duplicatesCountAsUploaded() async throws {
        let (backend, gateway) = try await TestGateway.loggedIn()
        let summaries = try await gateway.enqueue(25)
        try await backend.admin("POST", "/_admin/users/\(gateway.user)/sessions", ["sessions": summaries.prefix(5).map(TestSessions.object)])
        let report = try await gateway.service.uploader.run()
        #expect(report.batches.map(\.duplicates) == [5, 0])
        #expect(report.batches.map(\.accepted) == [15, 5])
        #expect(report.succeeded)
        #expect(try await gateway.store.counts() == QueueCounts(uploaded: 25))
        let received = try await backend.storedSessions()
        #expect(received.count == 25)
        #expect(received.filter { $0.received == 2 }.count == 5)
    }

    /// Per-session failures: the refused sessions stay pending with `retry_count + 1`, the
    /// others are uploaded, and the next run delivers the refused ones.
    @Test func partialFailuresStayPendingAndGoNextTime() async throws {
        let (backend, gateway) = try await TestGateway.loggedIn()
        try await gateway.enqueue(21)
        try await backend.faults(["invalid:every=4,next=3"])
        let first = try await gateway.service.uploader.run()
        #expect(first.batches.map(\.retried) == [3, 0])
        #expect(!first.succeeded)
        #expect(first.outcome == .retry(retryAfter: nil))
        let pending = try await gateway.store.sessions(status: .pending)
        #expect(pending.count == 3)
        #expect(pending.allSatisfy { $0.retryCount == 1 && $0.rejectionCount == 1 && ($0.lastError ?? "").hasPrefix("validation_error") })
        let second = try await gateway.service.uploader.run()
        #expect(second.batches.map(\.size) == [3])
        #expect(second.succeeded)
        #expect(try await gateway.store.counts() == QueueCounts(uploaded: 21))
        #expect(try await backend.storedSessions().count == 21)
    }

    /// A session refused as invalid again and again goes to dead-letter on its third refusal
    /// and is never sent again; `--retry-dead` brings it back once the cause is fixed.
    @Test func aSessionAlwaysRefusedGoesToDeadLetter() async throws {
        let (backend, gateway) = try await TestGateway.loggedIn()
        try await gateway.enqueue(2)
        try await backend.faults(["invalid:after=1"])  // every new session but the very first
        for run in 1...3 {
            let report = try await gateway.service.uploader.run()
            #expect(report.batches.map(\.dead) == [run == 3 ? 1 : 0], "run \(run)")
        }
        let dead = try await gateway.store.sessions(status: .dead)
        #expect(dead.count == 1)
        #expect(dead.first?.rejectionCount == 3)
        #expect(try await gateway.service.uploader.run().batches.isEmpty, "a dead session is not sent again")
        try await backend.faults([])
        #expect(try await gateway.store.retryDead() == 1)
        #expect(try await gateway.service.uploader.run().succeeded)
        #expect(try await gateway.store.counts() == QueueCounts(uploaded: 2))
    }

    /// A refusal with a code that does not say "invalid" is retried up to ten times.
    @Test func otherRefusalsAreRetriedLonger() async throws {
        let (backend, gateway) = try await TestGateway.loggedIn()
        try await gateway.enqueue(1)
        try await backend.faults(["invalid:error=storage_busy"])
        for _ in 1...9 { try await gateway.service.uploader.run() }
        #expect(try await gateway.store.counts() == QueueCounts(pending: 1))
        try await gateway.service.uploader.run()
        #expect(try await gateway.store.counts() == QueueCounts(dead: 1))
    }

    /// "A 5xx in the middle batch": that batch stays pending, the procedure goes on, and the
    /// stats still agree (the gateway counts only what the backend holds).
    @Test func aServerErrorInTheMiddleBatch() async throws {
        let (backend, gateway) = try await TestGateway.loggedIn()
        let summaries = try await gateway.enqueue(45)
        try await backend.faults(["5xx:route=batch_upload,after=1,next=1"])
        let report = try await gateway.service.uploader.run()
        #expect(report.batches.map(\.size) == [20, 20, 5])
        #expect(report.batches.map { $0.failure != nil } == [false, true, false])
        #expect(report.batches[1].failure == "HTTP 503 server_error")
        #expect(report.summary == "45 sessions in 3 batches: 25 uploaded, 20 left pending (HTTP 503 server_error)")
        let pending = try await gateway.store.sessions(status: .pending)
        #expect(pending.map(\.sessionID) == summaries[20..<40].map(\.sessionID))
        #expect(pending.allSatisfy { $0.retryCount == 1 && $0.rejectionCount == 0 })
        guard case .agreed(let stats) = report.stats else {
            Issue.record("stats: \(report.stats)")
            return
        }
        #expect(stats.totalCount == 25)
        let again = try await gateway.service.uploader.run()
        #expect(again.batches.map(\.size) == [20])
        #expect(try await gateway.store.counts() == QueueCounts(uploaded: 45))
        #expect(try await backend.storedSessions().allSatisfy { $0.received == 1 })
    }

    /// The classic duplicate: the backend stores a batch and the answer never arrives. The
    /// batch stays pending, is sent again, and comes back as duplicates: stored once.
    @Test func aCommittedBatchWhoseAnswerIsLost() async throws {
        let (backend, gateway) = try await TestGateway.loggedIn(timeout: .seconds(2))
        try await gateway.enqueue(20)
        try await backend.faults(["timeout:route=batch_upload,next=1,mode=sleep,seconds=10"])
        let lost = try await gateway.service.uploader.run()
        #expect(lost.batches.first?.failure == "no answer within 2 s")
        #expect(try await gateway.store.counts() == QueueCounts(pending: 20))
        let again = try await gateway.service.uploader.run()
        #expect(again.batches.first?.duplicates == 20)
        #expect(try await gateway.store.counts() == QueueCounts(uploaded: 20))
        let stored = try await backend.storedSessions()
        #expect(stored.count == 20)
        #expect(stored.allSatisfy { $0.received == 2 })
    }

    /// 429 stops the run (the backend asked the gateway to wait) and says how long.
    @Test func rateLimitingStopsTheRun() async throws {
        let (backend, gateway) = try await TestGateway.loggedIn()
        try await gateway.enqueue(45)
        try await backend.faults(["429:route=batch_upload,after=1,next=1,retry-after=7"])
        let report = try await gateway.service.uploader.run()
        #expect(report.batches.count == 2)
        #expect(report.stoppedBy == .rateLimited(retryAfter: .seconds(7)))
        #expect(report.outcome == .retry(retryAfter: .seconds(7)))
        #expect(try await gateway.store.counts() == QueueCounts(pending: 25, uploaded: 20))
    }

    /// Stats that differ after the last batch are pushed (the gateway wins); equal ones are
    /// adopted. Here the backend holds a session the gateway does not know.
    @Test func differingStatsArePatched() async throws {
        let (backend, gateway) = try await TestGateway.loggedIn()
        let summaries = try await gateway.enqueue(3)
        try await backend.admin("POST", "/_admin/users/\(gateway.user)/sessions", ["sessions": [TestSessions.object(TestSessions.summary(99))]])
        let report = try await gateway.service.uploader.run()
        let local = WorkoutStats(summaries: summaries, timeZone: TimeZone(identifier: "UTC") ?? .gmt)
        guard case .patched(let sent, let server) = report.stats else {
            Issue.record("stats: \(report.stats)")
            return
        }
        #expect(sent == local)
        #expect(server.totalCount == 4)
        let stored = try await gateway.store.storedStats()
        #expect(stored?.stats == local)
        #expect(stored?.source == .gateway)
        let users = try await backend.admin("GET", "/_admin/users")["users"] as? [[String: Any]] ?? []
        let stats = try #require(users.first?["stats"] as? [String: Any])
        #expect(stats["workout_total_count"] as? Int == 3)
        #expect(users.first?["stats_patched"] as? Bool == true)
    }
}
