import DeterministicRandom
import TestSupport
import Foundation
import Store
import Testing
import Workout

/// The per-session plot series on a real SQLite file: appended with checkpoints, bound to the
/// queued session in its transaction, kept across a reopen, pruned with uploaded sessions.
@Suite("Session series in the store")
struct SeriesStoreTests {
    static func points(from start: Int, count: Int) -> [SeriesPoint] {
        (start..<(start + count)).map { (second: Int) -> SeriesPoint in
            let power = Double(100 + second % 50)
            let distance = Double(second * 8)
            return SeriesPoint(t: Double(second), power: power, cadence: 80, heartRate: 120, distance: distance)
        }
    }

    static func chunk(_ number: Int, from start: Int, count: Int) -> SeriesChunk {
        SeriesChunk(sessionID: Sessions.id(number), machine: Sessions.bike, points: points(from: start, count: count))
    }

    @Test func chunksAppendAndAFinishedSessionBindsItsSeries() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        try await store.saveAll([], series: [Self.chunk(1, from: 0, count: 5)])
        try await store.saveAll([], series: [Self.chunk(1, from: 5, count: 5)])
        let open = try #require(try await store.series(sessionID: Sessions.id(1)))
        #expect(!open.finished)
        #expect(open.points == Self.points(from: 0, count: 10))
        #expect(open.machineName == "SF-Bike-0001" && open.machineType == .bike)
        try await store.enqueue(Sessions.summary(1, offset: 0), machineAddress: Sessions.bike.address, series: Self.chunk(1, from: 10, count: 3))
        let finished = try #require(try await store.series(sessionID: Sessions.id(1)))
        #expect(finished.finished)
        #expect(finished.points == Self.points(from: 0, count: 13))
        #expect(try await store.series(sessionID: Sessions.id(2)) == nil)
    }

    /// A session whose points were all stored with checkpoints is still bound when it finishes
    /// with none pending; one recorded before series existed has none.
    @Test func aSessionFinishedWithNoPendingPointsIsBoundToo() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        try await store.saveAll([], series: [Self.chunk(1, from: 0, count: 4)])
        try await store.enqueue(Sessions.summary(1, offset: 0), machineAddress: Sessions.bike.address)
        #expect(try await store.series(sessionID: Sessions.id(1))?.finished == true)
        try await store.enqueue(Sessions.summary(2, offset: 3600))
        #expect(try await store.series(sessionID: Sessions.id(2)) == nil)
    }

    /// A dropped (too short) session's open series goes with its checkpoint.
    @Test func removingAnOpenSessionRemovesItsSeries() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        try await store.saveAll([], series: [Self.chunk(1, from: 0, count: 4), Self.chunk(2, from: 0, count: 4)])
        try await store.remove(machineAddress: Sessions.bike.address, sessionID: Sessions.id(1))
        #expect(try await store.series(sessionID: Sessions.id(1)) == nil)
        #expect(try await store.series(sessionID: Sessions.id(2))?.points.count == 4)
    }

    /// The process dies (no close) and a new one opens the file: the series so far is there,
    /// and the restored session carries on; a second repeated at the restart is kept once.
    @Test func aReopenedStoreKeepsTheSeriesSoFar() async throws {
        let directory = try TemporaryDirectory()
        do {
            let first = try GatewayStore(directory: directory.path)
            try await first.saveAll([], series: [Self.chunk(1, from: 0, count: 30)])
        }
        let second = try GatewayStore(directory: directory.path)
        #expect(try await second.series(sessionID: Sessions.id(1))?.points == Self.points(from: 0, count: 30))
        try await second.enqueue(Sessions.summary(1, offset: 0), machineAddress: Sessions.bike.address, series: Self.chunk(1, from: 29, count: 11))
        let series = try #require(try await second.series(sessionID: Sessions.id(1)))
        #expect(series.points.map(\.t) == (0..<40).map(Double.init))
        #expect(series.finished)
    }

    /// Property: whatever the order of uploads, the series kept are exactly those of pending
    /// and dead sessions and of the newest `retention` uploaded ones.
    @Test(arguments: [0, 1, 3, 7])
    func retentionPrunesTheOldestUploadedSeries(retention: Int) async throws {
        var random = SplitMix64(seed: UInt64(retention + 11))
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path, seriesRetention: retention)
        let count = 12
        for number in 1...count {
            try await store.enqueue(Sessions.summary(number, offset: number * 3600), series: Self.chunk(number, from: 0, count: 3))
        }
        var uploaded: Set<Int> = []
        var dead: Set<Int> = []
        for _ in 0..<4 {
            var outcomes: [String: SessionOutcome] = [:]
            for number in 1...count where !uploaded.contains(number) && !dead.contains(number) {
                switch random.next() % 4 {
                case 0, 1: outcomes[Sessions.id(number)] = .uploaded; uploaded.insert(number)
                case 2: outcomes[Sessions.id(number)] = .dead(error: "x"); dead.insert(number)
                default: break
                }
            }
            try await store.record(outcomes)
        }
        let keptUploaded = Set(uploaded.sorted().suffix(retention))
        var kept = 0
        for number in 1...count {
            let expected = !uploaded.contains(number) || keptUploaded.contains(number)
            if expected { kept += 1 }
            #expect((try await store.series(sessionID: Sessions.id(number)) != nil) == expected, "session \(number)")
        }
        // The chunks of a pruned series go with it (the foreign key's cascade).
        let footprint = try await store.seriesFootprint()
        #expect(footprint.series == kept && footprint.chunks == kept && footprint.points == 3 * kept)
    }

    /// A chunk the store cannot read is an error naming the session, never an empty plot.
    @Test func aDamagedChunkIsAnError() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        try await store.saveAll([], series: [Self.chunk(1, from: 0, count: 2)])
        let edited = try await runProgram(["/usr/bin/env", "sqlite3", directory.file(GatewayStore.fileName), "UPDATE session_series_chunks SET points = '[{\"x\":1}'"])
        #expect(edited.status == 0)
        await #expect(throws: StoreError.self) { try await store.series(sessionID: Sessions.id(1)) }
    }
}
