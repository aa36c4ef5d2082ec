import TestSupport
import FTMS
import Foundation
import Testing
import Workout
@testable import Store

/// Issue 37 on real SQLite files: an open session another gateway adopted is handed over. Its
/// checkpoint and open plot go, it is never uploaded from here, and the store remembers to whom
/// it went, across a restart.
@Suite("Sessions handed over")
struct HandOverTests {
    static let point = SeriesPoint(t: 1, values: FieldValues())

    @Test func aHandedOverSessionLeavesNoCheckpointAndIsNeverQueued() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        let snapshot = try CheckpointStoreTests.snapshot()
        let other = try CheckpointStoreTests.snapshot(machine: MachineIdentity(name: "SF-Rower-0002", address: "C0:11:22:33:44:02", type: .rower), seed: 2)
        try await store.saveAll(
            [snapshot, other], series: [SeriesChunk(sessionID: snapshot.sessionID, machine: snapshot.machine, points: [Self.point])])
        #expect(try await store.series(sessionID: snapshot.sessionID) != nil)

        #expect(try await store.handOver(sessionID: snapshot.sessionID, machineAddress: snapshot.machine.address, to: "floor-2") == false)
        #expect(try await store.loadAll() == [other])
        #expect(try await store.series(sessionID: snapshot.sessionID) == nil)
        let handed = try await store.handedOver()
        #expect(handed.map { "\($0.sessionID) \($0.machineAddress) \($0.gateway)" } == ["\(snapshot.sessionID) \(snapshot.machine.address) floor-2"])

        // The session ending here later (its engine's grace) is not queued.
        let summary = try #require(SessionEngine.closing(snapshot)?.summary)
        #expect(try await store.enqueue(summary, machineAddress: snapshot.machine.address) == .handedOver)
        #expect(try await store.counts() == QueueCounts())
        #expect(try await store.pendingBatch(after: nil, limit: 20).isEmpty)

        // Remembered across a restart.
        try store.close()
        let reopened = try GatewayStore(directory: directory.path)
        #expect(try await reopened.handedOver() == handed)
        #expect(try await reopened.loadAll() == [other])
    }

    /// The session was already closed here and queued (this gateway learnt of the adoption
    /// late): the pending summary goes, and its journal copy, so no restart brings it back.
    @Test func aPendingSummaryOfAHandedOverSessionGoesWithItsJournalCopy() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        let kept = Sessions.summary(2, offset: 3_600)
        try await store.enqueue(Sessions.summary(1, offset: 0))
        try await store.enqueue(kept)
        #expect(try await store.handOver(sessionID: Sessions.id(1), machineAddress: Sessions.bike.address, to: "floor-3"))
        #expect(try await store.sessions().map(\.sessionID) == [kept.sessionID])
        #expect(SessionJournal(directory: directory.path).sessionIDs() == [kept.sessionID])
        try store.close()
        let reopened = try GatewayStore(directory: directory.path)
        #expect(reopened.journalReplay.requeued == 0)
        #expect(try await reopened.sessions().map(\.sessionID) == [kept.sessionID])
    }

    /// One already uploaded cannot be taken back: it stays uploaded (the adopter's later summary
    /// wins at the backend), and is marked handed over.
    @Test func anUploadedSummaryStays() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        try await store.enqueue(Sessions.summary(1, offset: 0))
        try await store.record([Sessions.id(1): .uploaded])
        #expect(try await store.handOver(sessionID: Sessions.id(1), machineAddress: Sessions.bike.address, to: "floor-2") == false)
        #expect(try await store.counts() == QueueCounts(uploaded: 1))
        #expect(try await store.handedOver().map(\.sessionID) == [Sessions.id(1)])
    }

    /// This gateway takes the session back (the adopter died in turn, and this one adopted its
    /// checkpoint): a checkpoint of it saved here takes the mark away, and its end is queued.
    @Test func aSessionCheckpointedHereAgainIsCarriedOnHere() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        let snapshot = try CheckpointStoreTests.snapshot()
        try await store.save(snapshot)
        try await store.handOver(sessionID: snapshot.sessionID, machineAddress: snapshot.machine.address, to: "floor-2")
        try await store.save(snapshot)
        #expect(try await store.handedOver().isEmpty)
        let summary = try #require(SessionEngine.closing(snapshot)?.summary)
        #expect(try await store.enqueue(summary, machineAddress: snapshot.machine.address) == .added)
        #expect(try await store.loadAll().isEmpty)
    }
}
