import TestSupport
import Foundation
import Testing
import Workout
@testable import Store

/// Seed 002 §7.3 on the gateway, on real SQLite files: of two summaries of one session the later
/// `endEpoch` wins, as the reference backend decides it. A gateway that closed a session at its
/// checkpoint and then carried it on after all (issue 37) queues the longer ride in its place,
/// and sends it again if the first one went up.
@Suite("Later summaries of one session")
struct LaterSummaryQueueTests {
    /// Session 1 as first closed (20 minutes) and as carried on (30 minutes).
    static let first = Sessions.summary(1, offset: 0, energy: 60, distance: 6_000, duration: 1_200)
    static let longer = Sessions.summary(1, offset: 0, energy: 100, distance: 10_000, duration: 1_800)

    @Test func aLaterEndReplacesTheQueuedSummary() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        #expect(try await store.enqueue(Self.first) == .added)
        #expect(try await store.enqueue(Self.longer) == .replaced)
        #expect(try await store.counts() == QueueCounts(pending: 1))
        #expect(try await store.sessionJSON(id: Self.longer.sessionID) == Self.longer.jsonString)
        let row = try #require(try await store.session(id: Self.longer.sessionID))
        #expect(row.totalDistance == 10_000)
        #expect(row.duration == 1_800)
        // Kept across a restart, and the journal's second copy is the later one too.
        try store.close()
        let reopened = try GatewayStore(directory: directory.path)
        #expect(try await reopened.sessionJSON(id: Self.longer.sessionID) == Self.longer.jsonString)
        let journal = SessionJournal(directory: directory.path).read().entries
        #expect(journal.map(\.record.sessionID) == [Self.longer.sessionID])
        #expect(journal.first?.record.totalDistance == 10_000)
    }

    /// An end as early or earlier (a copy, the stale half) keeps the queued one, whichever came
    /// first.
    @Test func anEarlierOrEqualEndKeepsTheQueuedSummary() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        #expect(try await store.enqueue(Self.longer) == .added)
        #expect(try await store.enqueue(Self.first) == .kept)
        #expect(try await store.enqueue(Self.longer) == .kept)
        // Later by less than a second is the same endEpoch: kept, as the backend would.
        var almost = Self.longer
        almost.endedAt = Self.longer.endedAt.adding(nanoseconds: 400_000_000)
        #expect(try await store.enqueue(almost) == .kept)
        #expect(try await store.sessionJSON(id: Self.longer.sessionID) == Self.longer.jsonString)
        #expect(try await store.counts() == QueueCounts(pending: 1))
    }

    /// The first summary went up; the longer one is pending again with fresh retry counts, in
    /// the next batch, and the backend lets it win.
    @Test func aLaterEndOfAnUploadedSessionIsSentAgain() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        try await store.enqueue(Self.first)
        try await store.recordFailedCall(sessionIDs: [Self.first.sessionID], error: "HTTP 503")
        try await store.record([Self.first.sessionID: .uploaded])
        #expect(try await store.counts() == QueueCounts(uploaded: 1))
        #expect(try await store.enqueue(Self.longer) == .replaced)
        #expect(try await store.counts() == QueueCounts(pending: 1))
        let batch = try await store.pendingBatch(after: nil, limit: 20)
        #expect(batch.map(\.sessionID) == [Self.longer.sessionID])
        #expect(batch.first?.json == Self.longer.jsonString)
        #expect(batch.first?.retryCount == 0)
    }

    /// What a session split from is kept on its row for `status`; a replacement without one
    /// keeps it.
    @Test func whatASessionSplitFromIsKept() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        try await store.enqueue(Self.first, splitFrom: Sessions.id(9))
        try await store.enqueue(Sessions.summary(2, offset: 3_600))
        #expect(try await store.session(id: Self.first.sessionID)?.splitFrom == Sessions.id(9))
        #expect(try await store.session(id: Sessions.id(2))?.splitFrom == nil)
        try await store.enqueue(Self.longer)
        #expect(try await store.sessions().map(\.splitFrom) == [Sessions.id(9), nil])
    }
}
