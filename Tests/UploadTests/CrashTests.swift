import TestSupport
import DeterministicRandom
import Foundation
import Store
import Testing
import Workout

#if canImport(Glibc)
import Glibc
#endif

/// The crash test of the issue: `ftms-bridge upload` killed with SIGKILL at random points,
/// again and again, against a backend that also fails (5xx, batches stored whose answer is
/// lost, 2-second tokens); then every session must be on the backend exactly once, and the
/// local store must agree.
@Suite("Crash safety")
struct CrashTests {
    static let kills = 100
    static let sessionsPerRound = 30

    /// The refresh grace (docs/sync.md, the one window the client cannot close) is an hour: a
    /// token replaced by a refresh whose process was killed before storing its successor is
    /// accepted again until a later process stores one, however long the machine takes to get
    /// there. With 30 s a loaded run (57 s) outlasted it, and the login was lost to reuse.
    @Test func sigkilledUploadsDeliverEverySessionExactlyOnce() async throws {
        let backend = try await ReferenceBackend(
            [
                "--token-lifetime", "2", "--refresh-grace", "3600",
                "--fault", "5xx:route=batch_upload,every=9",
                "--fault", "timeout:route=batch_upload,every=7,mode=drop",
                "--fault", "latency:ms=30,route=batch_upload+refresh",
            ])
        let directory = try TemporaryDirectory(prefix: "ftms-crash")
        let remote = ["--state-dir", directory.path, "--backend", backend.url, "--timeout", "1", "--time-zone", "UTC"]
        let bridge = ChildProcess.builtProduct("ftms-bridge")
        let login = try await ChildProcess.run(bridge, ["login", "--provider", "test"] + remote, stdin: "test:crash-rider")
        try #require(login.status == 0, "\(login.stderr)")
        let store = try GatewayStore(directory: directory.path)

        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        var expected: [String] = []
        var killedMidway = 0
        for round in 0..<Self.kills {
            let summaries = (0..<Self.sessionsPerRound).map { TestSessions.summary(round * Self.sessionsPerRound + $0) }
            try await store.enqueue(summaries)
            expected += summaries.map(\.sessionID)
            let upload = try ChildProcess(bridge, ["upload"] + remote, name: "crash-upload")
            try await Task.sleep(for: .milliseconds(Int64(random.next(upperBound: 250 as UInt64))))
            upload.signal(SIGKILL)
            if await upload.wait(within: .seconds(10)) == 128 + SIGKILL { killedMidway += 1 }
        }
        // Many kills must land while the upload runs, or the test proves little (70 to 95 in
        // 100 do; a test process starved by other suites now and then kills one too late).
        #expect(killedMidway >= Self.kills / 3, "seed \(seed): only \(killedMidway) of \(Self.kills) kills hit a running upload")

        var finished = false
        for _ in 0..<20 where !finished {
            let upload = try await ChildProcess.run(bridge, ["upload"] + remote)
            finished = upload.status == 0
        }
        #expect(finished, "seed \(seed): uploads kept failing after the kills")

        let stored = try await backend.storedSessions()
        #expect(stored.count == expected.count, "seed \(seed)")
        #expect(Set(stored.map(\.id)).count == stored.count, "seed \(seed): a session is stored twice")
        #expect(Set(stored.map(\.id)) == Set(expected), "seed \(seed)")
        #expect(try await store.counts() == QueueCounts(pending: 0, uploaded: expected.count, dead: 0), "seed \(seed)")
        #expect(try await store.integrityCheck() == ["ok"])
        #expect(try await store.accountState().loggedIn, "seed \(seed): the kills cost the login")

        let utc = TimeZone(identifier: "UTC") ?? .gmt
        let local = try await store.localStats(timeZone: utc)
        #expect(local.totalCount == expected.count)
        #expect(try await store.storedStats()?.stats == local)
        let users = try await backend.admin("GET", "/_admin/users")["users"] as? [[String: Any]] ?? []
        let serverStats = try #require(users.first?["stats"] as? [String: Any])
        #expect(serverStats["workout_total_count"] as? Int == local.totalCount)
        #expect(serverStats["workout_total_energy"] as? Int == local.totalEnergy)
        #expect(serverStats["workout_total_distance"] as? Int == local.totalDistance)
        #expect(serverStats["workout_total_duration"] as? Int == local.totalDuration)
        let counters = try await backend.counters()
        #expect(counters["reuse_detected"] as? Int == 0, "seed \(seed): two refreshes raced")
        #expect(try await backend.refreshes(device: store.deviceID) >= 2, "the 2-second tokens were refreshed under the kills")
    }
}
