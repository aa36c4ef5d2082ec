import DeterministicRandom
import FTMS
import Foundation
import Logging
@testable import Store
import Testing
import Workout
@testable import Daemon
import Publish

/// Plot points through the checkpoint keeper and the sink, on a real SQLite store: they land
/// with the checkpoints' transaction, a failed batch loses none, a finished session takes its
/// pending points into the queue's transaction, a dropped one takes its series away.
@Suite("Session series through the keeper")
struct SessionSeriesTests {
    typealias Rig = FinishedSessionKeeperTests.Rig

    static func point(_ t: Int) -> SeriesPoint { SeriesPoint(t: Double(t), power: Double(150 + t % 40), cadence: 85, heartRate: 130) }

    static var quiet: Logger { Logger(label: "test") { _ in SwiftLogNoOpLogHandler() } }

    @Test func pointsWaitForTheCheckpointBatchAndGoInIt() async throws {
        let rig = try Rig()
        let keeper = rig.keeper()
        let snapshot = try FinishedSessionKeeperTests.snapshot(1)
        for t in 0..<5 { keeper.record(Self.point(t), sessionID: snapshot.sessionID, machine: snapshot.machine) }
        #expect(try await rig.store.series(sessionID: snapshot.sessionID) == nil)
        #expect(await keeper.pendingPoints == 5)
        await keeper.submit(snapshot)
        await keeper.flush()
        #expect(try await rig.store.series(sessionID: snapshot.sessionID)?.points == (0..<5).map(Self.point))
        #expect(try await rig.saved() == [snapshot.machine.address: snapshot])
        #expect(await keeper.pendingPoints == 0)
    }

    /// Property over random runs: batches fail at random (a trigger injected by another
    /// process); once the store takes them again, every point recorded is stored, once, in order.
    @Test(arguments: [1, 2, 3, 4])
    func failedBatchesLoseNoPoint(seed: Int) async throws {
        var random = SplitMix64(seed: UInt64(seed))
        let rig = try Rig()
        let keeper = rig.keeper()
        let snapshots = try (1...3).map { try FinishedSessionKeeperTests.snapshot($0) }
        var recorded: [String: [SeriesPoint]] = [:]
        var refusing = false
        for t in 0..<60 {
            for snapshot in snapshots where random.next() % 3 != 0 {
                let point = Self.point(t)
                recorded[snapshot.sessionID, default: []].append(point)
                keeper.record(point, sessionID: snapshot.sessionID, machine: snapshot.machine)
            }
            if t % 5 == 4 {
                let refuse = random.next() % 2 == 0
                if refuse != refusing {
                    try await rig.sql(refuse
                        ? "CREATE TRIGGER refuse BEFORE INSERT ON session_series_chunks BEGIN SELECT RAISE(ABORT, 'injected'); END;"
                        : "DROP TRIGGER refuse;")
                    refusing = refuse
                }
                await keeper.submit(snapshots[Int(random.next() % 3)])
                await keeper.flush()
            }
        }
        if refusing { try await rig.sql("DROP TRIGGER refuse;") }
        await keeper.flush()
        #expect(await keeper.pendingPoints == 0)
        for snapshot in snapshots {
            #expect(try await rig.store.series(sessionID: snapshot.sessionID)?.points == recorded[snapshot.sessionID])
        }
    }

    /// A finished session's pending points are stored with it; if the store refuses the
    /// session, they are held with it and stored with it once the store takes it.
    @Test func aFinishedSessionTakesItsPendingPoints() async throws {
        let rig = try Rig()
        let keeper = rig.keeper()
        let sink = SessionSink(keeper: keeper, publisher: LivePublisher(server: nil), logger: Self.quiet)
        let snapshot = try FinishedSessionKeeperTests.snapshot(1)
        let machine = snapshot.machine
        for t in 0..<3 { sink.record(Self.point(t), sessionID: snapshot.sessionID, machine: machine) }
        await sink.checkpoint(snapshot)
        for t in 3..<6 { sink.record(Self.point(t), sessionID: snapshot.sessionID, machine: machine) }
        let summary = try #require(Self.finish(snapshot))
        try await rig.sql("CREATE TRIGGER refuse BEFORE INSERT ON sessions BEGIN SELECT RAISE(ABORT, 'injected'); END;")
        await sink.deliver(.finished(Self.progress(snapshot), summary), machine: machine)
        #expect(try await rig.store.series(sessionID: summary.sessionID)?.finished == false)
        #expect(try await rig.store.series(sessionID: summary.sessionID)?.points == (0..<3).map(Self.point))
        #expect(await keeper.heldCount == 1)
        #expect(await keeper.pendingPoints == 0, "held with the session, not left for a batch")
        await keeper.flush()
        #expect(await keeper.heldCount == 1)
        try await rig.sql("DROP TRIGGER refuse;")
        await keeper.flush()
        #expect(await keeper.heldCount == 0)
        let stored = try #require(try await rig.store.series(sessionID: summary.sessionID))
        #expect(stored.finished)
        #expect(stored.points == (0..<6).map(Self.point))
        #expect(try await rig.store.sessionJSON(id: summary.sessionID) != nil)
    }

    @Test func aDroppedSessionTakesItsSeriesAway() async throws {
        let rig = try Rig()
        let keeper = rig.keeper()
        let sink = SessionSink(keeper: keeper, publisher: LivePublisher(server: nil), logger: Self.quiet)
        let snapshot = try FinishedSessionKeeperTests.snapshot(1)
        sink.record(Self.point(0), sessionID: snapshot.sessionID, machine: snapshot.machine)
        await sink.checkpoint(snapshot)
        sink.record(Self.point(1), sessionID: snapshot.sessionID, machine: snapshot.machine)
        let summary = try #require(Self.finish(snapshot))
        await sink.deliver(.dropped(Self.progress(snapshot), .tooShort, summary), machine: snapshot.machine)
        #expect(try await rig.store.series(sessionID: snapshot.sessionID) == nil)
        #expect(await keeper.pendingPoints == 0)
    }

    static func progress(_ snapshot: SessionSnapshot) -> SessionProgress {
        SessionProgress(sessionID: snapshot.sessionID, startedAt: FinishedSessionKeeperTests.origin, elapsed: .seconds(30), moving: .seconds(30))
    }

    /// A summary of the snapshot's session, as the engine would queue it.
    static func finish(_ snapshot: SessionSnapshot) -> SessionSummary? {
        let start = FinishedSessionKeeperTests.origin
        let detail = SessionDetail(
            machine: snapshot.machine, elapsed: 30, paused: 0, averagePower: 180, energyMethod: .counter,
            distanceMethod: .counter, sampleCount: 30, endReason: .stopped)
        return SessionSummary(
            sessionID: snapshot.sessionID, startedAt: start, endedAt: start.adding(seconds: 30), duration: 30,
            totalEnergy: 10, totalDistance: 240, detail: detail)
    }
}

/// Timed batches take a session's points only once it holds `seriesBatchPoints`: fewer, fuller
/// chunk rows; `flush()` (shutdown) takes them all.
@Suite("Session series: timed batches")
struct SeriesTimedBatchTests {
    @Test
    func aTimedBatchWaitsForAFullChunkAndAFlushTakesEverything() async throws {
        let rig = try FinishedSessionKeeperTests.Rig()
        let keeper = rig.keeper(window: .milliseconds(50))
        let snapshot = try FinishedSessionKeeperTests.snapshot(1)
        let full = CheckpointBatch.seriesBatchPoints
        for t in 0..<(full - 1) { keeper.record(SessionSeriesTests.point(t), sessionID: snapshot.sessionID, machine: snapshot.machine) }
        await keeper.submit(snapshot)
        let deadline = ContinuousClock.now + .seconds(20)
        while try await rig.saved().isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(try await rig.saved() == [snapshot.machine.address: snapshot])
        #expect(try await rig.store.series(sessionID: snapshot.sessionID) == nil, "a chunk short of \(full) points waits")
        #expect(await keeper.pendingPoints == full - 1)

        keeper.record(SessionSeriesTests.point(full - 1), sessionID: snapshot.sessionID, machine: snapshot.machine)
        await keeper.submit(snapshot)
        while try await rig.store.series(sessionID: snapshot.sessionID) == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(try await rig.store.series(sessionID: snapshot.sessionID)?.points == (0..<full).map(SessionSeriesTests.point))

        keeper.record(SessionSeriesTests.point(full), sessionID: snapshot.sessionID, machine: snapshot.machine)
        await keeper.flush()
        #expect(try await rig.store.series(sessionID: snapshot.sessionID)?.points == (0...full).map(SessionSeriesTests.point))
        #expect(await keeper.pendingPoints == 0)
    }
}
