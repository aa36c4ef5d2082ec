import DeterministicRandom
import FTMS
import Foundation
import Logging
import Publish
import Store
import Synchronization
import Testing
import Workout
@testable import Daemon

/// Issue 37, the session side of the floor on a real SQLite store: the sink tells the floor's
/// mirror of every checkpoint and every session's end; a session another gateway carries on is
/// handed over through the keeper, never stored nor announced here; a split session says so.
@Suite("Session mirror and handover")
struct SessionMirrorTests {
    typealias Rig = FinishedSessionKeeperTests.Rig

    /// What the mirror heard, in order.
    final class Heard: Sendable {
        private let events = Mutex<[SessionMirrorEvent]>([])
        private let observed = Mutex<[String]>([])
        func mirror(_ event: SessionMirrorEvent) { events.withLock { $0.append(event) } }
        func observe(_ event: SessionEvent) { observed.withLock { $0.append("\(event.state)") } }
        var all: [SessionMirrorEvent] { events.withLock { $0 } }
        var states: [String] { observed.withLock { $0 } }
    }

    static let quiet = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    static func sink(_ keeper: FinishedSessionKeeper, _ heard: Heard?) -> SessionSink {
        let observe: @Sendable (SessionEvent) -> Void = { heard?.observe($0) }
        guard let heard else { return SessionSink(keeper: keeper, publisher: LivePublisher(server: nil), logger: quiet, observe: observe) }
        let mirror: @Sendable (SessionMirrorEvent) -> Void = { heard.mirror($0) }
        return SessionSink(keeper: keeper, publisher: LivePublisher(server: nil), logger: quiet, observe: observe, mirror: mirror)
    }

    /// 90 s ridden on machine 1, then closed; `splitFrom` given to the engine first.
    static func ride(splitFrom: String? = nil, seconds: Int = 90) -> (events: [SessionEvent], snapshots: [SessionSnapshot], machine: MachineIdentity) {
        let machine = MachineIdentity(name: "SF-Bike-0001", address: "C0:11:22:33:44:01", type: .bike)
        var engine = SessionEngine(machine: machine, ids: RandomSessionIDs(using: SplitMix64(seed: 1)))
        if let splitFrom { engine.splitting(from: splitFrom) }
        var events: [SessionEvent] = []
        var snapshots: [SessionSnapshot] = []
        for second in 0...seconds {
            var values = FieldValues()
            values.set(.instantaneousCadence, value: 85)
            values.set(.instantaneousPower, value: 180)
            values.set(.totalDistance, value: Double(1000 + 8 * second))
            let time = Timestamp(monotonic: .seconds(second), wallOrigin: FinishedSessionKeeperTests.origin)
            events += engine.ingest(DataRecord(kind: .indoorBikeData, values: values), at: time)
            if let snapshot = engine.checkpointIfDue(at: time) { snapshots.append(snapshot) }
        }
        events += engine.close(at: Timestamp(monotonic: .seconds(seconds), wallOrigin: FinishedSessionKeeperTests.origin), reason: .stopped)
        return (events, snapshots, machine)
    }

    @Test func theMirrorHearsEveryCheckpointAndEachEnd() async throws {
        let rig = try Rig()
        let heard = Heard()
        let sink = Self.sink(rig.keeper(), heard)
        let (events, snapshots, machine) = Self.ride()
        #expect(snapshots.count >= 18)
        for snapshot in snapshots.dropLast() { await sink.checkpointSoon(snapshot) }
        await sink.checkpoint(try #require(snapshots.last))
        for event in events { await sink.deliver(event, machine: machine) }
        let summary = try #require(events.last?.summary)
        #expect(heard.all == snapshots.map(SessionMirrorEvent.checkpoint) + [
            .finished(sessionID: summary.sessionID, machine: machine, endEpoch: summary.endedAt.secondsSince1970, splitFrom: nil)
        ])
        #expect(try await rig.store.counts() == QueueCounts(pending: 1))

        // A session below the minimum: dropped, and the mirror hears that.
        let short = Self.ride(seconds: 30)
        for event in short.events { await sink.deliver(event, machine: short.machine) }
        #expect(heard.all.last == .dropped(sessionID: short.events[0].sessionID, machine: short.machine))
    }

    /// Nobody listening: the same session, stored the same, and nothing to tell.
    @Test func withoutAMirrorTheSinkIsAsBefore() async throws {
        let rig = try Rig()
        let sink = Self.sink(rig.keeper(), nil)
        #expect(sink.mirror == nil)
        let (events, snapshots, machine) = Self.ride()
        for snapshot in snapshots { await sink.checkpointSoon(snapshot) }
        for event in events { await sink.deliver(event, machine: machine) }
        #expect(try await rig.store.counts() == QueueCounts(pending: 1))
    }

    /// The floor learns that another gateway carries the open session on: the keeper hands it
    /// over (its pending checkpoint never lands), and when this gateway's engine later ends it,
    /// nothing is stored, published, counted or mirrored: the adopter announces that ride.
    @Test func aHandedOverSessionIsNeitherStoredNorAnnouncedHere() async throws {
        let rig = try Rig()
        let heard = Heard()
        let keeper = rig.keeper()
        let sink = Self.sink(keeper, heard)
        let (events, snapshots, machine) = Self.ride()
        for event in [events[0]] { await sink.deliver(event, machine: machine) }
        for snapshot in snapshots { await sink.checkpointSoon(snapshot) }
        try await keeper.handOver(sessionID: events[0].sessionID, machine: machine, to: "floor-2")
        await keeper.flush()
        #expect(try await rig.store.loadAll().isEmpty)
        let mirrored = heard.all.count

        for event in Array(events.dropFirst()) { await sink.deliver(event, machine: machine) }
        #expect(try await rig.store.counts() == QueueCounts())
        #expect(heard.states == ["started"])
        #expect(heard.all.count == mirrored)
        #expect(try await rig.store.handedOver().map(\.gateway) == ["floor-2"])
        let summary = try #require(events.last?.summary)
        #expect(await keeper.finish(summary, machine: machine) == .handedOver)
    }

    /// A later summary of a queued session, through the keeper: it replaces the queued one.
    @Test func theKeeperLetsTheLaterEndWin() async throws {
        let rig = try Rig()
        let keeper = rig.keeper()
        let machine = MachineIdentity(name: "SF-Bike-0001", address: "C0:11:22:33:44:01", type: .bike)
        let snapshot = try FinishedSessionKeeperTests.snapshot(1, seconds: 70)
        let closed = try #require(SessionEngine.closing(snapshot)?.summary)
        var longer = closed
        longer.endedAt = closed.endedAt.adding(seconds: 60)
        longer.duration += 60
        #expect(await keeper.finish(closed, machine: machine) == .queued)
        #expect(await keeper.finish(longer, machine: machine) == .replaced)
        #expect(await keeper.finish(closed, machine: machine) == .alreadyQueued)
        #expect(try await rig.store.session(id: closed.sessionID)?.duration == longer.duration)
    }

    /// A split session: its started event and its end say what it split from, the stored row
    /// keeps it, and the metrics socket's (and MQTT's) `session_state` carries `splitFrom`.
    @Test func aSplitSessionSaysSoEverywhere() async throws {
        let rig = try Rig()
        let heard = Heard()
        let sink = Self.sink(rig.keeper(), heard)
        let from = "4b1d6c2e-0000-4000-8000-00000000000a"
        let (events, _, machine) = Self.ride(splitFrom: from)
        for event in events { await sink.deliver(event, machine: machine) }
        #expect(try await rig.store.session(id: events[0].sessionID)?.splitFrom == from)
        let summary = try #require(events.last?.summary)
        #expect(heard.all.last == .finished(sessionID: summary.sessionID, machine: machine, endEpoch: summary.endedAt.secondsSince1970, splitFrom: from))
        let started = String(decoding: MetricsPayloads.sessionState(events[0]).bytes, as: UTF8.self)
        #expect(started.contains("\"splitFrom\":\"\(from)\""))
        let plain = Self.ride().events[0]
        #expect(!String(decoding: MetricsPayloads.sessionState(plain).bytes, as: UTF8.self).contains("splitFrom"))
    }

    /// A session the store refused (held in memory) that turns out to be carried on elsewhere:
    /// handing it over lets it go from memory too, so it is never written once the store takes
    /// writes again. A handover the store refuses throws and keeps the held session: nothing
    /// is dropped on a failed write.
    @Test func aHeldSessionHandedOverIsLetGo() async throws {
        let rig = try Rig()
        let keeper = rig.keeper()
        let machine = MachineIdentity(name: "SF-Bike-0001", address: "C0:11:22:33:44:01", type: .bike)
        let summary = try #require(SessionEngine.closing(try FinishedSessionKeeperTests.snapshot(1, seconds: 70))?.summary)
        try await rig.sql("CREATE TRIGGER refuse BEFORE INSERT ON sessions BEGIN SELECT RAISE(ABORT, 'injected'); END;")
        #expect(await keeper.finish(summary, machine: machine) == .held)
        try await rig.sql("CREATE TRIGGER refuseMark BEFORE INSERT ON handed_over BEGIN SELECT RAISE(ABORT, 'injected'); END;")
        await #expect(throws: (any Error).self) { try await keeper.handOver(sessionID: summary.sessionID, machine: machine, to: "floor-2") }
        #expect(await keeper.heldCount == 1)
        try await rig.sql("DROP TRIGGER refuseMark;")
        try await keeper.handOver(sessionID: summary.sessionID, machine: machine, to: "floor-2")
        #expect(await keeper.heldCount == 0)
        try await rig.sql("DROP TRIGGER refuse;")
        await keeper.flush()
        #expect(try await rig.store.counts() == QueueCounts())
        #expect(try await rig.store.handedOver().map(\.sessionID) == [summary.sessionID])
    }
}
