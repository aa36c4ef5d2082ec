import TestSupport
import DeterministicRandom
import Testing
import Workout
@testable import Store

/// The session queue: SolidFocus's `upload_status` and `retry_count`, the dead-letter state,
/// oldest-first batches, and the merge of the backend's sessions at login.
@Suite("Session queue")
struct QueueTests {
    @Test func enqueueIsIdempotentBySessionID() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        let summary = Sessions.summary(1, offset: 0)
        #expect(try await store.enqueue(summary) == .added)
        #expect(try await store.enqueue(summary) == .kept)
        #expect(try await store.enqueue([summary, Sessions.summary(2, offset: 60)]) == 1)
        #expect(try await store.counts() == QueueCounts(pending: 2))
        #expect(try await store.sessionJSON(id: summary.sessionID) == summary.jsonString)
    }

    /// Pages of 20 come oldest first by `started_at`, ties broken by id, each after the last,
    /// whatever order the sessions were stored in.
    @Test func batchesAreOldestFirst() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        var random = SplitMix64(seed: 7)
        let numbers = Array(0..<45).shuffled(using: &random)
        for number in numbers {
            // Pairs share a start time, so the id breaks the tie.
            try await store.enqueue(Sessions.summary(number, offset: (number / 2) * 3600))
        }
        var cursor: QueueCursor?
        var seen: [String] = []
        var sizes: [Int] = []
        while true {
            let batch = try await store.pendingBatch(after: cursor, limit: 20)
            guard let last = batch.last else { break }
            sizes.append(batch.count)
            seen += batch.map(\.sessionID)
            cursor = QueueCursor(after: last)
        }
        #expect(sizes == [20, 20, 5])
        #expect(seen == (0..<45).map(Sessions.id))
    }

    @Test func outcomesMoveSessionsBetweenStates() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        for number in 0..<4 { try await store.enqueue(Sessions.summary(number, offset: number * 60)) }
        try await store.record([
            Sessions.id(0): .uploaded,
            Sessions.id(1): .retry(error: "internal_error"),
            Sessions.id(2): .dead(error: "validation_error: Invalid duration"),
        ])
        try await store.recordFailedCall(sessionIDs: [Sessions.id(1), Sessions.id(3)], error: "HTTP 503")
        let rows = Dictionary(uniqueKeysWithValues: try await store.sessions().map { ($0.sessionID, $0) })
        #expect(rows[Sessions.id(0)]?.status == .uploaded)
        #expect(rows[Sessions.id(1)]?.status == .pending)
        #expect(rows[Sessions.id(1)]?.retryCount == 2)
        #expect(rows[Sessions.id(1)]?.rejectionCount == 1, "a failed call is not a rejection")
        #expect(rows[Sessions.id(1)]?.lastError == "HTTP 503")
        #expect(rows[Sessions.id(2)]?.status == .dead)
        #expect(rows[Sessions.id(2)]?.retryCount == 1)
        #expect(rows[Sessions.id(2)]?.lastError == "validation_error: Invalid duration")
        #expect(rows[Sessions.id(3)]?.retryCount == 1)
        #expect(rows[Sessions.id(3)]?.rejectionCount == 0)
        #expect(try await store.counts() == QueueCounts(pending: 2, uploaded: 1, dead: 1))
        // A late failure for a session already uploaded (another process got there) changes nothing.
        try await store.recordFailedCall(sessionIDs: [Sessions.id(0)], error: "timeout")
        #expect(try await store.sessions(status: .uploaded).map(\.retryCount) == [0])

        #expect(try await store.retryDead() == 1)
        let revived = try #require(try await store.sessions().first { $0.sessionID == Sessions.id(2) })
        #expect(revived.status == .pending)
        #expect(revived.retryCount == 0)
        #expect(revived.rejectionCount == 0)
        #expect(try await store.counts() == QueueCounts(pending: 3, uploaded: 1, dead: 0))
    }

    /// SolidFocus Flow 2 step 4: downloaded sessions are `uploaded`; a local pending one the
    /// backend already holds becomes `uploaded`; nothing is stored twice.
    @Test func downloadedSessionsMergeByID() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        try await store.enqueue(Sessions.summary(1, offset: 0))
        try await store.enqueue(Sessions.summary(2, offset: 60))
        let fromServer = [Sessions.summary(2, offset: 60), Sessions.summary(3, offset: 120)].map(SessionRecord.init)
        let merged = try await store.mergeDownloaded(fromServer)
        #expect(merged.added == 1)
        #expect(merged.alreadyHeld == 1)
        let rows = try await store.sessions()
        #expect(rows.map(\.sessionID) == [1, 2, 3].map(Sessions.id))
        #expect(rows.map(\.status) == [.pending, .uploaded, .uploaded])
        #expect(rows.map(\.downloaded) == [false, false, true])
    }
}
