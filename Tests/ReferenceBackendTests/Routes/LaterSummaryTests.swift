import DeterministicRandom
import Glibc
import JSON
import TestSupport
import Testing
@testable import ReferenceBackend

/// Seed 002 §7.3 at the backend: of two summaries of one session, the one whose `ended_at` is
/// later stands. Over real HTTP on loopback, as a gateway that carried a ride on (or two
/// gateways that both uploaded it) would send them.
@Suite("Two summaries of one session: the later ended_at wins")
struct LaterSummaryTests {
    /// Session `number`'s summary as a gateway that recorded it until `minute` past 07:00 would
    /// send it: the longer, the more time, energy and distance. `distance` overrides the
    /// distance, for two summaries with one end and different contents.
    /// `number` is below 60, so the session starts at 07:00:`number` (``Sessions/make(_:day:duration:energy:distance:)``).
    static func summary(_ number: Int = 1, endingAt minute: Int, distance: Int64? = nil) -> JSONValue {
        let minuteText = minute < 10 ? "0\(minute)" : "\(minute)"
        let secondText = number < 10 ? "0\(number)" : "\(number)"
        var session = Sessions.changing(Sessions.make(number), "ended_at", to: .string("2025-12-24T07:\(minuteText):\(secondText)Z"))
        session = Sessions.changing(session, "duration", to: .integer(Int64(minute) * 60))
        session = Sessions.changing(session, "total_energy", to: .integer(Int64(minute) * 10))
        return Sessions.changing(session, "total_distance", to: .integer(distance ?? Int64(minute) * 400))
    }

    /// The stats of exactly one session with `summary`'s figures.
    static func stats(of summary: JSONValue) -> JSONValue {
        [
            "workout_total_count": 1, "workout_total_energy": summary["total_energy"] ?? .null,
            "workout_total_distance": summary["total_distance"] ?? .null, "workout_total_duration": summary["duration"] ?? .null,
            "workout_streak": 1, "last_workout_date": "2025-12-24",
        ]
    }

    @Test("a later summary replaces the stored one: stored, its figures in the stats, one session counted")
    func laterWins() async throws {
        try await withBackend(setup: .live) { api, _ in
            let login = try await api.login("alice")
            let first = try await api.upload([Self.summary(endingAt: 20)], token: login.access)
            #expect(first["updated_stats"] == Self.stats(of: Self.summary(endingAt: 20)))
            let later = try await api.upload([Self.summary(endingAt: 40)], token: login.access)
            #expect(later["success_count"] == 1 && later["duplicate_count"] == 0 && later["failed_sessions"] == [])
            #expect(later["updated_stats"] == Self.stats(of: Self.summary(endingAt: 40)))
            #expect(try await api.call(.get, "/sessions", bearer: login.access)["sessions"] == [Self.summary(endingAt: 40)])
            #expect(try await api.call(.get, "/users/me/stats", bearer: login.access).json == Self.stats(of: Self.summary(endingAt: 40)))
            let report = try await api.call(.get, "/_admin/sessions")
            #expect(report["total"] == 1 && report["received_total"] == 2)
            let counters = try await api.call(.get, "/_admin/counters")
            #expect(counters["sessions_accepted"] == 1 && counters["sessions_replaced"] == 1 && counters["duplicates_received"] == 0)
        }
    }

    @Test("an earlier summary after a later one is a duplicate and changes nothing")
    func earlierLoses() async throws {
        try await withBackend(setup: .live) { api, _ in
            let login = try await api.login("alice")
            _ = try await api.upload([Self.summary(endingAt: 40)], token: login.access)
            let earlier = try await api.upload([Self.summary(endingAt: 20)], token: login.access)
            #expect(earlier["success_count"] == 0 && earlier["duplicate_count"] == 1 && earlier["failed_sessions"] == [])
            #expect(earlier["updated_stats"] == Self.stats(of: Self.summary(endingAt: 40)))
            #expect(try await api.call(.get, "/sessions", bearer: login.access)["sessions"] == [Self.summary(endingAt: 40)])
            #expect(try await api.call(.get, "/_admin/counters")["sessions_replaced"] == 0)
        }
    }

    @Test("an equal ended_at is a duplicate even with other figures: the stored summary stays")
    func equalIsDuplicate() async throws {
        try await withBackend(setup: .live) { api, _ in
            let login = try await api.login("alice")
            _ = try await api.upload([Self.summary(endingAt: 30)], token: login.access)
            let same = try await api.upload([Self.summary(endingAt: 30, distance: 99_999)], token: login.access)
            #expect(same["success_count"] == 0 && same["duplicate_count"] == 1)
            #expect(same["updated_stats"] == Self.stats(of: Self.summary(endingAt: 30)))
            #expect(try await api.call(.get, "/sessions", bearer: login.access)["sessions"] == [Self.summary(endingAt: 30)])
        }
    }

    @Test("the same later summary twice replaces once; within one batch the order of arrival decides")
    func idempotent() async throws {
        try await withBackend(setup: .live) { api, _ in
            let login = try await api.login("alice")
            _ = try await api.upload([Self.summary(endingAt: 20)], token: login.access)
            let once = try await api.upload([Self.summary(endingAt: 40), Self.summary(endingAt: 40)], token: login.access)
            #expect(once["success_count"] == 1 && once["duplicate_count"] == 1)
            let again = try await api.upload([Self.summary(endingAt: 40)], token: login.access)
            #expect(again["success_count"] == 0 && again["duplicate_count"] == 1)
            #expect(again["updated_stats"] == Self.stats(of: Self.summary(endingAt: 40)))
            // Session 2: a new one, a later one and a stale one in one batch; every one is answered.
            let mixed = try await api.upload(
                [Self.summary(2, endingAt: 10), Self.summary(2, endingAt: 50), Self.summary(2, endingAt: 30)], token: login.access)
            #expect(mixed["success_count"] == 2 && mixed["duplicate_count"] == 1 && mixed["failed_sessions"] == [])
            let counters = try await api.call(.get, "/_admin/counters")
            #expect(counters["sessions_accepted"] == 2 && counters["sessions_replaced"] == 2 && counters["duplicates_received"] == 3)
            let sessions = try await api.call(.get, "/sessions", bearer: login.access)
            #expect(sessions["sessions"] == [Self.summary(endingAt: 40), Self.summary(2, endingAt: 50)])
            #expect(sessions["sessions"]?.arrayCount == 2)
            let stats = try await api.call(.get, "/users/me/stats", bearer: login.access)
            #expect(stats["workout_total_count"] == 2 && stats["workout_total_distance"] == .integer(40 * 400 + 50 * 400))
        }
    }

    @Test("POST /sessions: a later summary is 201, an equal one 400 duplicate_session")
    func singleUpload() async throws {
        try await withBackend(setup: .live) { api, _ in
            let login = try await api.login("alice")
            #expect(try await api.call(.post, "/sessions", bearer: login.access, body: Self.summary(endingAt: 20)).status == 201)
            let later = try await api.call(.post, "/sessions", bearer: login.access, body: Self.summary(endingAt: 40))
            #expect(later.status == 201 && later["updated_stats"] == Self.stats(of: Self.summary(endingAt: 40)))
            let again = try await api.call(.post, "/sessions", bearer: login.access, body: Self.summary(endingAt: 40))
            #expect(again.status == 400 && again.error == "duplicate_session")
            let earlier = try await api.call(.post, "/sessions", bearer: login.access, body: Self.summary(endingAt: 30))
            #expect(earlier.status == 400 && earlier.error == "duplicate_session")
        }
    }

    @Test("a replacing summary ends a PATCHed override, as a new session does; a stale one does not")
    func replacementEndsOverride() async throws {
        try await withBackend(setup: .live) { api, _ in
            let login = try await api.login("alice")
            _ = try await api.upload([Self.summary(endingAt: 20)], token: login.access)
            _ = try await api.call(.patch, "/users/me/stats", bearer: login.access, body: ["workout_total_energy": 999])
            let stale = try await api.upload([Self.summary(endingAt: 10)], token: login.access)
            #expect(stale["updated_stats"]?["workout_total_energy"] == 999)
            let later = try await api.upload([Self.summary(endingAt: 40)], token: login.access)
            #expect(later["updated_stats"] == Self.stats(of: Self.summary(endingAt: 40)))
        }
    }

    @Test("the replacement survives a SIGKILL and restart of ftms-backend, and the compacted file keeps it")
    func replayAfterRestart() async throws {
        let scratch = try TemporaryDirectory(prefix: "ftms-backend")
        let path = scratch.file("state.jsonl")
        let first = try await BackendProcess(["--quiet", "--state", path])
        let login = try await API.connect(port: first.port) { api in
            let login = try await api.login("alice")
            _ = try await api.upload([Self.summary(endingAt: 20)], token: login.access)
            _ = try await api.upload([Self.summary(endingAt: 40)], token: login.access)
            _ = try await api.upload([Self.summary(endingAt: 30)], token: login.access)
            return login
        }
        #expect(await first.stop(SIGKILL) == 128 + SIGKILL)
        // Twice: the first start replays the appended lines, the second reads the file the first compacted.
        for _ in 0..<2 {
            let next = try await BackendProcess(["--quiet", "--state", path])
            try await API.connect(port: next.port) { (api: API) async throws in
                #expect(try await api.call(.get, "/sessions", bearer: login.access)["sessions"] == [Self.summary(endingAt: 40)])
                #expect(try await api.call(.get, "/users/me/stats", bearer: login.access).json == Self.stats(of: Self.summary(endingAt: 40)))
                #expect(try await api.call(.get, "/_admin/sessions")["received_total"] == 3)
            }
            #expect(await next.stop() == 0)
        }
        let last = try await BackendProcess(["--quiet", "--state", path])
        try await API.connect(port: last.port) { api in
            let stale = try await api.upload([Self.summary(endingAt: 40)], token: login.access)
            #expect(stale["duplicate_count"] == 1)
            let later = try await api.upload([Self.summary(endingAt: 50)], token: login.access)
            #expect(later["success_count"] == 1 && later["updated_stats"] == Self.stats(of: Self.summary(endingAt: 50)))
        }
        #expect(await last.stop() == 0)
    }

    /// One trial: `count` summaries of session `number`, ends drawn from few minutes so that
    /// ties occur, some sent twice, in a random order, in batches of random sizes or one by
    /// one. The oracle: the first to arrive of those with the latest end.
    struct Trial {
        let number: Int
        let arrivals: [JSONValue]
        /// 1 or more: how many go in one call; 0 sends each through `POST /sessions`.
        let batchSize: Int

        init(number: Int, random: inout SplitMix64) {
            self.number = number
            let count = 1 + Int(random.next() % 6)
            var summaries = (0..<count).map { index in
                LaterSummaryTests.summary(number, endingAt: 1 + Int(random.next() % 8), distance: Int64(number * 1000 + index))
            }
            summaries += summaries.filter { _ in random.next() % 3 == 0 }
            arrivals = summaries.shuffled(using: &random)
            batchSize = Int(random.next() % 4)
        }

        var standing: JSONValue? {
            let latest = arrivals.compactMap { $0["ended_at"]?.string }.max()
            return arrivals.first { $0["ended_at"]?.string == latest }
        }
    }

    @Test("random orders of N summaries of one session: the one with the latest ended_at stands, counted once")
    func randomOrders() async throws {
        try await withBackend(setup: .live) { api, _ in
            let login = try await api.login("alice")
            var random = SplitMix64(seed: 37)
            var expected: [JSONValue] = []
            for number in 1...40 {
                let trial = Trial(number: number, random: &random)
                if trial.batchSize == 0 {
                    for summary in trial.arrivals {
                        let status = try await api.call(.post, "/sessions", bearer: login.access, body: summary).status
                        #expect(status == 201 || status == 400, "trial \(number)")
                    }
                } else {
                    for start in stride(from: 0, to: trial.arrivals.count, by: trial.batchSize) {
                        let batch = Array(trial.arrivals[start..<min(start + trial.batchSize, trial.arrivals.count)])
                        let answer = try await api.upload(batch, token: login.access)
                        let answered = (answer["success_count"]?.integer ?? 0) + (answer["duplicate_count"]?.integer ?? 0)
                        #expect(answered == Int64(batch.count) && answer["failed_sessions"] == [], "trial \(number)")
                    }
                }
                let standing = try #require(trial.standing)
                expected.append(standing)
                let stored = try await api.call(.get, "/sessions", bearer: login.access)["sessions"]
                #expect(stored?.array?.last == standing, "trial \(number): \(trial.arrivals.map { $0["ended_at"] ?? .null })")
            }
            let stats = try await api.call(.get, "/users/me/stats", bearer: login.access)
            #expect(stats["workout_total_count"] == 40)
            let distance = expected.reduce(Int64(0)) { $0 + ($1["total_distance"]?.integer ?? 0) }
            #expect(stats["workout_total_distance"] == .integer(distance))
            #expect(try await api.call(.get, "/sessions", bearer: login.access)["sessions"] == .array(expected))
        }
    }
}
