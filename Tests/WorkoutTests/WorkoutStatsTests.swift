import Foundation
import Testing
import Workout

/// SolidFocus's stats, with the streak in the gateway's time zone.
@Suite("Workout stats")
struct WorkoutStatsTests {
    static func summary(_ started: String, duration: Int = 600, energy: Int = 100, distance: Int = 5000) throws -> SessionSummary {
        let start = try #require(UTCTime(iso8601: started))
        return SessionSummary(
            sessionID: started, startedAt: start, endedAt: start.adding(seconds: duration), duration: duration,
            totalEnergy: energy, totalDistance: distance,
            detail: SessionDetail(machine: Ride.bike, elapsed: duration, paused: 0, energyMethod: .counter, distanceMethod: .counter, sampleCount: duration, endReason: .idle)
        )
    }

    static func zone(_ identifier: String) throws -> TimeZone {
        try #require(TimeZone(identifier: identifier))
    }

    @Test func totalsAndAStreakInUTC() throws {
        let sessions = try [
            Self.summary("2026-11-15T09:00:00Z", duration: 1200, energy: 250, distance: 12_000),
            Self.summary("2026-11-19T18:00:00Z"),
            Self.summary("2026-11-20T07:00:00Z"),
            Self.summary("2026-11-20T19:00:00Z"),
            Self.summary("2026-11-21T06:30:00Z", duration: 300, energy: 40, distance: 2500),
        ]
        let stats = WorkoutStats(summaries: sessions, timeZone: try Self.zone("UTC"))
        #expect(stats.totalCount == 5)
        #expect(stats.totalEnergy == 590)
        #expect(stats.totalDistance == 29_500)
        #expect(stats.totalDuration == 3300)
        // 19, 20 (twice), 21: three days; the 15th is cut off by the gap.
        #expect(stats.streak == 3)
        #expect(stats.lastWorkoutDate?.description == "2026-11-21")
        #expect(stats.jsonString == #"{"workout_total_count":5,"workout_total_energy":590,"workout_total_distance":29500,"workout_total_duration":3300,"workout_streak":3,"last_workout_date":"2026-11-21"}"#)
    }

    @Test func noSessions() throws {
        let stats = WorkoutStats(summaries: [SessionSummary](), timeZone: try Self.zone("UTC"))
        #expect(stats.streak == 0)
        #expect(stats.lastWorkoutDate == nil)
        #expect(stats.jsonString == #"{"workout_total_count":0,"workout_total_energy":0,"workout_total_distance":0,"workout_total_duration":0,"workout_streak":0,"last_workout_date":null}"#)
    }

    /// The same three instants are three days in UTC and Tokyo, two in New York (where the
    /// last one is still the evening of the 7th), and a different pair in Auckland.
    @Test(arguments: [("UTC", 3, "2026-03-08"), ("Asia/Tokyo", 3, "2026-03-08"), ("America/New_York", 2, "2026-03-07"), ("Pacific/Auckland", 2, "2026-03-08")])
    func theStreakDependsOnTheZone(zone: String, streak: Int, last: String) throws {
        let sessions = try [
            Self.summary("2026-03-06T12:00:00Z"),  // Auckland (+13): 7th 01:00
            Self.summary("2026-03-07T12:00:00Z"),  // Auckland: 8th 01:00
            Self.summary("2026-03-08T04:30:00Z"),  // New York (−5): 7th 23:30; Auckland: 8th 17:30
        ]
        let stats = WorkoutStats(summaries: sessions, timeZone: try Self.zone(zone))
        #expect(stats.streak == streak)
        #expect(stats.lastWorkoutDate?.description == last)
    }

    /// The zone's rules give a three-day streak; its standard (or summer) offset all year
    /// round puts one session on the wrong day and breaks the streak in two.
    static func expectDaylightSaving(
        _ instants: [String], zone: String, lastDay: String, fixedOffsetHours: Int, fixedLastDay: String
    ) throws {
        let sessions = try instants.map { try summary($0) }
        let stats = WorkoutStats(summaries: sessions, timeZone: try Self.zone(zone))
        #expect(stats.streak == 3)
        #expect(stats.lastWorkoutDate?.description == lastDay)
        let fixed = WorkoutStats(summaries: sessions, timeZone: try #require(TimeZone(secondsFromGMT: fixedOffsetHours * 3600)))
        #expect(fixed.streak == 2)
        #expect(fixed.lastWorkoutDate?.description == fixedLastDay)
    }

    /// New York springs forward on 2026-03-08. A ride at 00:30 EDT on the 9th is 04:30Z; with
    /// the winter offset (−5) it would fall on the 8th.
    @Test func springForward() throws {
        try Self.expectDaylightSaving(
            ["2026-03-07T17:00:00Z", "2026-03-08T16:00:00Z", "2026-03-09T04:30:00Z"],  // 12:00 EST, 12:00 EDT, 00:30 EDT
            zone: "America/New_York", lastDay: "2026-03-09", fixedOffsetHours: -5, fixedLastDay: "2026-03-08"
        )
    }

    /// Berlin falls back on 2026-10-25 (03:00 CEST → 02:00 CET). 23:30 CET on the 25th is
    /// 22:30Z: still the 25th, though summer time (+2) would make it the 26th.
    @Test func fallBack() throws {
        try Self.expectDaylightSaving(
            ["2026-10-24T21:30:00Z", "2026-10-25T22:30:00Z", "2026-10-26T22:30:00Z"],  // 23:30 CEST, CET, CET
            zone: "Europe/Berlin", lastDay: "2026-10-26", fixedOffsetHours: 2, fixedLastDay: "2026-10-27"
        )
    }

    @Test func statsRoundTripThroughCodable() throws {
        let stats = WorkoutStats(summaries: try [Self.summary("2025-12-24T10:00:00Z")], timeZone: try Self.zone("Asia/Taipei"))
        let decoded = try JSONDecoder().decode(WorkoutStats.self, from: Data(stats.jsonString.utf8))
        #expect(decoded == stats)
        #expect(decoded.lastWorkoutDate == LocalDate(year: 2025, month: 12, day: 24))
    }
}
