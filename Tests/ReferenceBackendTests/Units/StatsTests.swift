import CivilTime
import JSON
import Foundation
import Testing
@testable import ReferenceBackend

@Suite("Stats: sums, streaks, zones, PATCH")
struct StatsTests {
    static func figures(_ startedAt: String, duration: Int64 = 60, energy: Int64 = 10, distance: Int64 = 100) throws -> SessionFigures {
        let start = Double(try #require(UTCTime(iso8601: startedAt)).millisecondsSince1970) / 1000
        return SessionFigures(startedAt: start, endedAt: start + 3600, duration: duration, energy: energy, distance: distance)
    }

    static func stats(_ starts: [String], zone: String = "UTC") throws -> UserStats {
        let state = BackendState(signingKey: [], timeZone: try #require(TimeZone(identifier: zone)))
        var tally = StatsTally()
        for start in starts {
            let figures = try figures(start)
            tally.add(figures, on: state.day(of: figures))
        }
        return tally.stats
    }

    @Test("no sessions: zeros and a null date")
    func empty() throws {
        #expect(try Self.stats([]) == .empty)
        let json = String(decoding: try JSONCoding.data(UserStats.empty), as: UTF8.self)
        #expect(json.contains(#""last_workout_date":null"#))
    }

    @Test("sums, and a streak that counts back from the latest day across a gap")
    func streak() throws {
        let stats = try Self.stats([
            "2025-12-20T07:00:00Z", "2025-12-22T07:00:00Z", "2025-12-23T07:00:00Z", "2025-12-23T19:00:00Z", "2025-12-24T07:00:00Z",
        ])
        #expect(stats == UserStats(totalCount: 5, totalEnergy: 50, totalDistance: 500, totalDuration: 300, streak: 3, lastWorkoutDate: "2025-12-24"))
    }

    @Test("a streak across a month and year end")
    func streakAcrossYearEnd() throws {
        let stats = try Self.stats(["2025-12-30T10:00:00Z", "2025-12-31T10:00:00Z", "2026-01-01T10:00:00Z"])
        #expect(stats.streak == 3 && stats.lastWorkoutDate == "2026-01-01")
    }

    @Test("days are the configured zone's: 23:30 UTC is the next day in Taipei")
    func zones() throws {
        let starts = ["2025-12-23T23:30:00Z", "2025-12-25T01:00:00Z"]
        let utc = try Self.stats(starts)
        #expect(utc.streak == 1 && utc.lastWorkoutDate == "2025-12-25")
        let taipei = try Self.stats(starts, zone: "Asia/Taipei")
        #expect(taipei.streak == 2 && taipei.lastWorkoutDate == "2025-12-25")
        let losAngeles = try Self.stats(starts, zone: "America/Los_Angeles")
        #expect(losAngeles.streak == 2 && losAngeles.lastWorkoutDate == "2025-12-24")
    }

    @Test("PATCH: a subset of fields over the current stats")
    func patch() throws {
        let current = UserStats(totalCount: 5, totalEnergy: 50, totalDistance: 500, totalDuration: 300, streak: 3, lastWorkoutDate: "2025-12-24")
        let patched = try StatsPatch(["workout_total_energy": 60, "last_workout_date": .null]).applied(to: current)
        #expect(patched == UserStats(totalCount: 5, totalEnergy: 60, totalDistance: 500, totalDuration: 300, streak: 3, lastWorkoutDate: nil))
    }

    static let patchRefusalCases: [(JSONValue, String)] = [
        (.array([]), "the body must be a stats object"),
        ([:], "no stats fields to change"),
        (["workout_total_energy": -1], "workout_total_energy must be a whole number ≥ 0"),
        (["workout_streak": "3"], "workout_streak must be a whole number ≥ 0"),
        (["last_workout_date": "24/12/2025"], "last_workout_date must be YYYY-MM-DD or null"),
        (["workout_total_calories": 1], "unknown stats field workout_total_calories"),
    ]

    @Test("PATCH refusals", arguments: patchRefusalCases)
    func patchRefusals(body: JSONValue, message: String) {
        #expect(throws: BackendRefusal.invalidRequest(message)) { try StatsPatch(body).applied(to: .empty) }
    }
}

@Suite("Stats totals saturate instead of trapping")
struct StatsSaturationTests {
    @Test("sessions at the largest JSON-safe figures add up to that figure, not an overflow")
    func saturation() {
        let huge = JSONValue.maxSafeInteger
        var tally = StatsTally()
        for _ in 0..<3 {
            tally.add(SessionFigures(startedAt: 0, endedAt: 1, duration: 1, energy: huge, distance: huge), on: LocalDate(dayNumber: 0))
        }
        #expect(tally.stats.totalEnergy == huge && tally.stats.totalDistance == huge && tally.stats.totalDuration == 3)
    }
}
