import Testing
import Workout
@testable import Store

/// What waits for the keeper's next transaction, without a store: what a batch takes, what a
/// refused batch puts back, what a closing session takes out.
@Suite("Checkpoint batch")
struct CheckpointBatchTests {
    static func point(_ t: Int) -> SeriesPoint { SessionSeriesTests.point(t) }

    @Test func aBatchLeavesMachinesWaitingBehindAHeldSessionAndShortChunksOfATimedBatch() throws {
        var batch = CheckpointBatch()
        let one = try FinishedSessionKeeperTests.snapshot(1)
        let two = try FinishedSessionKeeperTests.snapshot(2)
        batch.submit(one)
        batch.submit(two)
        for t in 0..<CheckpointBatch.seriesBatchPoints { batch.record(Self.point(t), sessionID: one.sessionID, machine: one.machine) }
        batch.record(Self.point(0), sessionID: two.sessionID, machine: two.machine)
        let timed = batch.take(allPoints: false, except: [two.machine.address])
        #expect(timed.snapshots == [one.machine.address: one])
        #expect(timed.series[one.sessionID]?.points.count == CheckpointBatch.seriesBatchPoints)
        #expect(timed.series[two.sessionID] == nil)
        #expect(batch.snapshots == [two.machine.address: two] && batch.points == 1)
        let all = batch.take(allPoints: true, except: [])
        #expect(all.snapshots == [two.machine.address: two] && all.series[two.sessionID]?.points == [Self.point(0)])
        #expect(batch.isEmpty)
    }

    @Test func aRefusedBatchComesBackUnderWhatCameSince() throws {
        var batch = CheckpointBatch()
        let older = try FinishedSessionKeeperTests.snapshot(1, seconds: 10)
        let newer = try FinishedSessionKeeperTests.snapshot(1, seconds: 20)
        let other = try FinishedSessionKeeperTests.snapshot(2)
        batch.submit(older)
        batch.submit(other)
        batch.record(Self.point(0), sessionID: older.sessionID, machine: older.machine)
        let refused = batch.take(allPoints: true, except: [])
        batch.submit(newer)
        batch.record(Self.point(1), sessionID: older.sessionID, machine: older.machine)
        batch.putBack(snapshots: refused.snapshots, series: refused.series)
        #expect(batch.snapshots == [newer.machine.address: newer, other.machine.address: other], "the newer snapshot wins")
        #expect(batch.series[older.sessionID]?.points == [Self.point(0), Self.point(1)], "the refused points are older")
    }

    @Test func aClosingSessionTakesOnlyItsOwnCheckpointAndPoints() throws {
        var batch = CheckpointBatch()
        let open = try FinishedSessionKeeperTests.snapshot(1)
        batch.submit(open)
        batch.record(Self.point(0), sessionID: open.sessionID, machine: open.machine)
        batch.forgetCheckpoint(machineAddress: open.machine.address, sessionID: "another session")
        #expect(batch.snapshots.count == 1)
        #expect(batch.takeSeries(sessionID: "another session") == nil)
        batch.forgetCheckpoint(machineAddress: open.machine.address, sessionID: open.sessionID)
        #expect(batch.takeSeries(sessionID: open.sessionID)?.points == [Self.point(0)])
        #expect(batch.isEmpty)
    }
}
