import TestSupport
import Foundation
import GRDB
import Testing
import Workout
@testable import Store

/// The session journal: the second copy of each finished session until the backend has it.
@Suite("Session journal")
struct SessionJournalTests {
    static func ids(_ directory: TemporaryDirectory) -> [String] {
        SessionJournal(directory: directory.path).read().entries.map(\.record.sessionID)
    }

    @Test func aFinishedSessionIsInTheJournalUntilTheBackendHasIt() async throws {
        let directory = try TemporaryDirectory(prefix: "ftms-journal")
        let store = try GatewayStore(directory: directory.path)
        try await store.enqueue(Sessions.summary(1, offset: 0))
        try await store.enqueue(Sessions.summary(1, offset: 0))
        try await store.enqueue([Sessions.summary(2, offset: 60), Sessions.summary(3, offset: 120)])
        #expect(Self.ids(directory) == [Sessions.id(1), Sessions.id(2), Sessions.id(3)], "each once")
        let journal = directory.file(SessionJournal.fileName)
        #expect(try FileManager.default.attributesOfItem(atPath: journal)[.posixPermissions] as? Int == 0o600)
        let entry = try #require(SessionJournal(directory: directory.path).read().entries.first)
        #expect(try await entry.record.json == store.sessionJSON(id: Sessions.id(1)), "the session as it is uploaded")

        try await store.record([Sessions.id(2): .uploaded, Sessions.id(3): .retry(error: "later")])
        #expect(Self.ids(directory) == [Sessions.id(1), Sessions.id(3)], "compacted once acknowledged")
        _ = try await store.mergeDownloaded([SessionRecord(Sessions.summary(3, offset: 120))])
        #expect(Self.ids(directory) == [Sessions.id(1)])
        try await store.wipeAccount()
        #expect(Self.ids(directory).isEmpty, "logout: the next account must not get them")
        try store.close()
    }

    /// A zeroed database: the daemon's open puts back every pending session from the journal,
    /// once, with its dates still waiting when they were; an acknowledged one is not sent again.
    @Test func aLostDatabaseGetsItsPendingSessionsBackAtOpen() async throws {
        let directory = try TemporaryDirectory(prefix: "ftms-journal")
        let path = directory.file(GatewayStore.fileName)
        let store = try GatewayStore(directory: directory.path)
        let timing = SessionTiming(boot: BootID("boot-a"), start: .seconds(120), datesAreTrue: false)
        try await store.enqueue(Sessions.summary(1, offset: 0), timing: timing)
        try await store.enqueue(Sessions.summary(2, offset: 60))
        try await store.enqueue(Sessions.summary(3, offset: 120))
        try await store.record([Sessions.id(3): .uploaded])
        try store.close()
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        try Data(count: size).write(to: URL(fileURLWithPath: path))

        let (fresh, moved) = try GatewayStore.openMovingDamagedAside(directory: directory.path)
        #expect(moved != nil)
        #expect(fresh.journalReplay == JournalReplay(requeued: 2))
        #expect(Set(try await fresh.sessions(status: .pending).map(\.sessionID)) == [Sessions.id(1), Sessions.id(2)])
        #expect(try await fresh.pendingBatch(after: nil, limit: 10).map(\.sessionID) == [Sessions.id(2)], "session 1 still waits for a true clock")
        try fresh.close()
        let again = try GatewayStore(directory: directory.path)
        #expect(again.journalReplay == JournalReplay())
        #expect(try await again.sessions().count == 2)
        try again.close()
    }

    /// A long backlog: an acknowledged batch is an appended acknowledgement, not a rewrite,
    /// until half the file is acknowledged; an acknowledged session is never put back.
    @Test func aLongBacklogIsAcknowledgedByAppendingThenCompacted() async throws {
        let directory = try TemporaryDirectory(prefix: "ftms-journal")
        let store = try GatewayStore(directory: directory.path)
        try await store.enqueue((0..<200).map { Sessions.summary($0, offset: $0 * 60) })
        let path = directory.file(SessionJournal.fileName)
        func size() throws -> Int { try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) }
        let full = try size()
        #expect(full > SessionJournal.compactAlways)
        try await store.record(Dictionary(uniqueKeysWithValues: (0..<50).map { (Sessions.id($0), SessionOutcome.uploaded) }))
        #expect(try size() > full, "an acknowledgement appended")
        #expect(Self.ids(directory).count == 150)
        try await store.record(Dictionary(uniqueKeysWithValues: (50..<100).map { (Sessions.id($0), SessionOutcome.uploaded) }))
        #expect(try size() < full * 2 / 3, "half acknowledged: rewritten without them")
        #expect(Self.ids(directory) == (100..<200).map(Sessions.id))
        try await store.record(Dictionary(uniqueKeysWithValues: (100..<120).map { (Sessions.id($0), SessionOutcome.uploaded) }))
        try store.close()
        try Data(count: 4096).write(to: URL(fileURLWithPath: directory.file(GatewayStore.fileName)))
        let (fresh, _) = try GatewayStore.openMovingDamagedAside(directory: directory.path)
        #expect(fresh.journalReplay.requeued == 80, "the acknowledged ones are not sent again")
        try fresh.close()
    }

    /// A torn tail and a damaged record are skipped with one line each; the rest is read.
    @Test func aTornOrDamagedRecordIsSkippedWithAWarning() async throws {
        let directory = try TemporaryDirectory(prefix: "ftms-journal")
        let store = try GatewayStore(directory: directory.path)
        for number in 1...4 { try await store.enqueue(Sessions.summary(number, offset: number * 60)) }
        try store.close()
        let path = directory.file(SessionJournal.fileName)
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let second = try #require((1..<bytes.count).first { Array(bytes[$0..<min($0 + 4, bytes.count)]) == Array("FTJ1".utf8) })
        bytes[second + 40] ^= 0xFF
        bytes.removeLast(7)
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let contents = SessionJournal(directory: directory.path).read()
        #expect(contents.entries.map(\.record.sessionID) == [Sessions.id(1), Sessions.id(3)])
        #expect(contents.warnings.count == 2)
        #expect(contents.warnings.allSatisfy { !$0.contains("\n") && $0.contains(path) })
        let reopened = try GatewayStore(directory: directory.path)
        #expect(reopened.journalReplay.warnings == contents.warnings)
        try reopened.close()
        // An append after a torn tail is read again.
        let writer = SessionJournal(directory: directory.path)
        try writer.append([SessionJournal.Entry(record: SessionRecord(Sessions.summary(5, offset: 300)))])
        #expect(writer.read().entries.map(\.record.sessionID) == [Sessions.id(1), Sessions.id(3), Sessions.id(5)])
    }

    /// A journal that cannot be written costs the second copy, never the session.
    @Test func aJournalThatCannotBeWrittenLosesNoSession() async throws {
        let directory = try TemporaryDirectory(prefix: "ftms-journal")
        try FileManager.default.createDirectory(atPath: directory.file(SessionJournal.fileName), withIntermediateDirectories: false)
        let store = try GatewayStore(directory: directory.path)
        #expect(try await store.enqueue(Sessions.summary(1, offset: 0)) == .added)
        #expect(try await store.counts().pending == 1)
        #expect(store.journal?.lastFailure?.contains("session journal") == true)
        try store.close()
    }
}
