import DeterministicRandom
import TestSupport
import FTMS
import Foundation
import Logging
import Store
import Testing
import Workout
@testable import Daemon
import Publish

/// The keeper's periodic checkpoints of several machines in one transaction, on a real SQLite store:
/// none is lost by a failed batch, none of a closed session lands after its removal.
@Suite("Finished session keeper: checkpoints")
struct FinishedSessionKeeperTests {
    static let origin = UTCTime(secondsSince1970: 1_795_248_000)

    /// A real open session from the engine: `seconds` of riding.
    static func snapshot(_ machine: Int, seconds: Int = 30) throws -> SessionSnapshot {
        let identity = MachineIdentity(name: "SF-Bike-000\(machine)", address: "C0:11:22:33:44:0\(machine)", type: .bike)
        var engine = SessionEngine(machine: identity, ids: RandomSessionIDs(using: SplitMix64(seed: UInt64(machine))))
        for second in 0...seconds {
            var values = FieldValues()
            values.set(.instantaneousCadence, value: 85)
            values.set(.instantaneousPower, value: 180)
            values.set(.totalDistance, value: Double(1000 + 8 * second))
            _ = engine.ingest(DataRecord(kind: .indoorBikeData, values: values), at: Timestamp(monotonic: .seconds(second), wallOrigin: origin))
        }
        return try #require(engine.snapshot(at: Timestamp(monotonic: .seconds(seconds), wallOrigin: origin)))
    }

    final class Rig {
        let directory: TemporaryDirectory
        let store: GatewayStore

        init() throws {
            directory = try TemporaryDirectory(prefix: "ftms-keeper")
            store = try GatewayStore(directory: directory.path)
        }

        func keeper(window: Duration = .seconds(3600)) -> FinishedSessionKeeper {
            FinishedSessionKeeper(store: store, window: window, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        }

        /// Runs SQL on the store's file through the `sqlite3` tool, as a second process would.
        func sql(_ statement: String) async throws {
            let result = try await runProgram(["/usr/bin/env", "sqlite3", directory.file(GatewayStore.fileName), statement])
            #expect(result.status == 0)
        }

        func saved() async throws -> [String: SessionSnapshot] {
            Dictionary(uniqueKeysWithValues: try await store.loadAll().map { ($0.machine.address, $0) })
        }
    }

    @Test func machinesDueInOneWindowAreSavedTogetherAndTheLatestWins() async throws {
        let rig = try Rig()
        let keeper = rig.keeper()
        let first = try Self.snapshot(1, seconds: 10)
        let latest = try Self.snapshot(1, seconds: 20)
        let second = try Self.snapshot(2)
        await keeper.submit(first)
        await keeper.submit(second)
        await keeper.submit(latest)
        #expect(try await rig.saved().isEmpty)
        #expect(await keeper.pendingCount == 2)
        await keeper.flush()
        #expect(try await rig.saved() == [latest.machine.address: latest, second.machine.address: second])
        #expect(await keeper.pendingCount == 0)
    }

    @Test func theWindowFlushesOnItsOwn() async throws {
        let rig = try Rig()
        let keeper = rig.keeper(window: .milliseconds(100))
        let snapshot = try Self.snapshot(3)
        await keeper.submit(snapshot)
        let deadline = ContinuousClock.now + .seconds(20)
        while try await rig.saved().isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(try await rig.saved() == [snapshot.machine.address: snapshot])
    }

    /// The store refuses the batch (a trigger injected by another process): every snapshot is
    /// kept, a newer one of the same machine replaces its own, and the next batch saves them.
    @Test func aFailedBatchLosesNothing() async throws {
        let rig = try Rig()
        let keeper = rig.keeper()
        let one = try Self.snapshot(1, seconds: 10)
        let two = try Self.snapshot(2)
        await keeper.submit(one)
        await keeper.submit(two)
        try await rig.sql("CREATE TRIGGER refuse BEFORE INSERT ON checkpoints BEGIN SELECT RAISE(ABORT, 'injected'); END;")
        await keeper.flush()
        #expect(try await rig.saved().isEmpty)
        #expect(await keeper.pendingCount == 2)
        let newer = try Self.snapshot(1, seconds: 20)
        await keeper.submit(newer)
        try await rig.sql("DROP TRIGGER refuse;")
        await keeper.flush()
        #expect(try await rig.saved() == [newer.machine.address: newer, two.machine.address: two])
    }

    /// A session that closes takes its pending checkpoint out, even one a failed batch put back.
    @Test func aClosedSessionsCheckpointNeverLands() async throws {
        let rig = try Rig()
        let keeper = rig.keeper()
        let closing = try Self.snapshot(1)
        let open = try Self.snapshot(2)
        await keeper.submit(closing)
        await keeper.submit(open)
        try await rig.sql("CREATE TRIGGER refuse BEFORE INSERT ON checkpoints BEGIN SELECT RAISE(ABORT, 'injected'); END;")
        await keeper.flush()
        await keeper.discard(machineAddress: closing.machine.address, sessionID: closing.sessionID)
        // Another session's id leaves the pending checkpoint alone.
        await keeper.discard(machineAddress: open.machine.address, sessionID: closing.sessionID)
        try await rig.sql("DROP TRIGGER refuse;")
        await keeper.flush()
        #expect(try await rig.saved() == [open.machine.address: open])
    }

    /// Through the sink: a periodic checkpoint waits for its batch; the shutdown checkpoint is
    /// durable when `checkpoint` returns, and takes the pending ones with it.
    @Test func theSinkBatchesPeriodicCheckpointsAndSavesShutdownOnesAtOnce() async throws {
        let rig = try Rig()
        let keeper = rig.keeper()
        let sink = SessionSink(keeper: keeper, publisher: LivePublisher(server: nil), logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        let riding = try Self.snapshot(1)
        await sink.checkpointSoon(riding)
        #expect(try await rig.saved().isEmpty)
        let other = try Self.snapshot(2)
        await sink.checkpoint(other)
        #expect(try await rig.saved() == [riding.machine.address: riding, other.machine.address: other])
    }
}
