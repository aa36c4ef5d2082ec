import TestSupport
import Foundation
import Testing
import Workout
@testable import Store

/// contract §5, dates that are true, in the queue: a session recorded while the wall clock was
/// not true waits, unuploaded, until it is dated from where it lay on its boot's monotonic
/// clock, or until the wait is over and it is dated as well as can be, never before its
/// predecessor on the machine ended.
@Suite("Session dates")
struct SessionDatesTests {
    static let boot = BootID("4a1f2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d")
    static let y2000 = UTCTime(secondsSince1970: 946_684_800)
    static let floor = UTCTime(iso8601: "2026-11-01T00:00:00Z") ?? UTCTime(millisecondsSince1970: 0)

    /// Session `number` as recorded at boottime `start` seconds while the wall clock read 2000
    /// plus boottime: 30 minutes, dated 2000, not true.
    static func untrue(_ number: Int, start: Int, boot: BootID? = Self.boot) -> (SessionSummary, SessionTiming) {
        var summary = Sessions.summary(number, offset: 0)
        summary.startedAt = y2000.adding(seconds: start)
        summary.endedAt = summary.startedAt.adding(seconds: summary.detail.elapsed)
        summary.detail.clockUnsynchronised = true
        return (summary, SessionTiming(boot: boot, start: .seconds(Int64(start)), datesAreTrue: false))
    }

    func pendingIDs(_ store: GatewayStore) async throws -> [String] {
        try await store.pendingBatch(after: nil, limit: 100).map(\.sessionID)
    }

    func stored(_ store: GatewayStore, _ number: Int) async throws -> SessionSummary {
        let json = try #require(try await store.sessionJSON(id: Sessions.id(number)))
        return try SessionSummary(json: json)
    }

    /// Dated 2000 and not true: never in an upload batch until a true clock of its boot dates
    /// it, then at its boottime start plus that clock's offset, without the unsynchronised mark.
    @Test func aSessionWaitsUntilATrueClockDatesIt() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        let (summary, timing) = Self.untrue(1, start: 1000)
        try await store.enqueue(summary, timing: timing)
        try await store.enqueue(Sessions.summary(2, offset: -86_400))
        #expect(try await pendingIDs(store) == [Sessions.id(2)], "a session dated 2000 is not uploaded")
        #expect(try await store.undatedSessions() == UndatedSessions(waiting: 1))
        #expect(try await store.counts() == QueueCounts(pending: 2))

        // Another boot's clock cannot date it.
        #expect(try await store.dateSessions(boot: BootID("other"), offset: 0, isTrue: true, floor: Self.floor) == 0)
        // The truth: boottime 1000 is 2026-11-21T08:00:00Z.
        let offset = Sessions.origin.millisecondsSince1970 - 1_000_000
        #expect(try await store.dateSessions(boot: Self.boot, offset: offset, isTrue: true, floor: Self.floor) == 1)
        #expect(try await pendingIDs(store) == [Sessions.id(2), Sessions.id(1)])
        let dated = try await stored(store, 1)
        #expect(dated.startedAt.iso8601 == "2026-11-21T08:00:00Z")
        #expect(dated.endedAt.iso8601 == "2026-11-21T08:30:00Z")
        #expect(!dated.detail.clockUnsynchronised)
        #expect(try await store.sessions().first { $0.sessionID == Sessions.id(1) }?.startedAt == Sessions.origin)
        #expect(try await store.latestTrueEnd() == Sessions.origin.adding(seconds: 1800))
        #expect(try await store.undatedSessions() == UndatedSessions())
    }

    /// The wait is over with the clock still not true but reading past its floor: dated by it,
    /// marked unsynchronised, and never starting before the machine's previous session ended.
    @Test func theWaitRunsOutWithoutOverlappingThePredecessor() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        // The predecessor, truly dated, ends at 08:30.
        try await store.enqueue(Sessions.summary(1, offset: 0))
        let (summary, timing) = Self.untrue(2, start: 5000)
        try await store.enqueue(summary, timing: timing)
        // The clock, not true, says boottime 5000 is 08:10: it would overlap.
        let offset = Sessions.origin.adding(seconds: 600).millisecondsSince1970 - 5_000_000
        #expect(try await store.dateSessions(boot: Self.boot, offset: offset, isTrue: false, floor: Self.floor) == 1)
        let estimated = try await stored(store, 2)
        #expect(estimated.startedAt.iso8601 == "2026-11-21T08:30:00Z")
        #expect(estimated.detail.clockUnsynchronised)
        #expect(try await pendingIDs(store).contains(Sessions.id(2)), "uploaded once the wait is over")
        #expect(try await store.undatedSessions() == UndatedSessions(estimated: 1))
        // A true clock before the upload dates it again.
        let truth = Sessions.origin.adding(seconds: 7200).millisecondsSince1970 - 5_000_000
        #expect(try await store.dateSessions(boot: Self.boot, offset: truth, isTrue: true, floor: Self.floor) == 1)
        #expect(try await stored(store, 2).startedAt.iso8601 == "2026-11-21T10:00:00Z")
        #expect(try await store.latestTrueEnd() == Sessions.origin.adding(seconds: 7200 + 1800))
    }

    /// A session of an earlier boot that never had a true clock: once the wait is over it goes
    /// up with what its clock said, but never dated before the floor (this build's date).
    @Test func anEarlierBootsSessionIsEstimatedNotDated2000() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        let (summary, timing) = Self.untrue(3, start: 100, boot: BootID("earlier"))
        try await store.enqueue(summary, timing: timing)
        #expect(try await store.estimateOtherBoots(current: Self.boot, floor: Self.floor) == 1)
        let estimated = try await stored(store, 3)
        #expect(estimated.startedAt == Self.floor)
        #expect(estimated.detail.clockUnsynchronised)
        #expect(try await pendingIDs(store) == [Sessions.id(3)])
    }

    /// What the daemon knew of the clock survives a restart.
    @Test func theWallClocksStateIsKept() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        #expect(try await store.wallClock() == nil)
        let state = StoredWallClock(boot: Self.boot.value, offset: 1_795_000_000_000, trustedOffset: 1_795_000_000_000, trust: "stepped")
        try await store.saveWallClock(state)
        try await store.saveWallClock(state)
        let reopened = try GatewayStore(directory: directory.path)
        #expect(try await reopened.wallClock() == state)
    }
}
