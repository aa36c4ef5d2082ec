import BlueZTesting
import Foundation
import Logging
import NIOPosix
import Testing
import Workout
@testable import Daemon
import Publish
import Store

/// Checkpoints are kept per session, so a restart may find several of one machine (a finished
/// session the store could not take before the daemon stopped, then the machine's next): all
/// but the newest are closed where they stood and queued; the newest is carried on.
@Suite("Restore from checkpoints")
struct RestoreTests {
    typealias Rig = FinishedSessionKeeperTests.Rig

    @Test
    func aRestartClosesAMachinesOlderCheckpoints() async throws {
        let rig = try Rig()
        let older = try FinishedSessionKeeperTests.snapshot(1, seconds: 90)
        let newer = try SessionSnapshotAs.other(try FinishedSessionKeeperTests.snapshot(1, seconds: 100))
        try await rig.store.saveAll([older])
        try await rig.store.saveAll([newer])
        let checkpoints = try await rig.store.loadAll()
        #expect(checkpoints.count == 2)
        // The daemon's one path from a summary to the queue: the keeper.
        let sink = SessionSink(keeper: rig.keeper(), publisher: LivePublisher(server: nil), logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        // The daemon comes back 10 s after the newer checkpoint: within the grace.
        let wall = newer.savedAt.adding(seconds: 10)
        let fleet = MachineFleet(
            settings: FleetSettings(busAddress: "unix:path=/nonexistent", allow: []), sink: sink,
            clock: DaemonClock { Timestamp(monotonic: .seconds(1000), wall: wall) }, rules: SessionRules(),
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, eventLoop: MultiThreadedEventLoopGroup.singleton.next())
        await fleet.restore(checkpoints)
        let queued = try await rig.store.session(id: older.sessionID)
        #expect(queued?.status == .pending)
        #expect(queued?.duration == 90)
        let statuses = await fleet.statuses()
        #expect(statuses.map(\.sessionID) == [newer.sessionID])
        #expect(try await rig.store.loadAll().map(\.sessionID) == [newer.sessionID])
    }
}

/// Another session of the same machine: the snapshot's JSON with a new session id.
enum SessionSnapshotAs {
    static func other(_ snapshot: SessionSnapshot, id: String = "07e20000-0000-4000-8000-000000000001") throws -> SessionSnapshot {
        let encoded = String(decoding: try JSONEncoder().encode(snapshot), as: UTF8.self).replacingOccurrences(of: snapshot.sessionID, with: id)
        return try JSONDecoder().decode(SessionSnapshot.self, from: Data(encoded.utf8))
    }
}
