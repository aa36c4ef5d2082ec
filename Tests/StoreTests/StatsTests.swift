import TestSupport
import Foundation
import Testing
import Workout
@testable import Store

/// The gateway's stats: the sessions the backend holds, summed from the stored integers.
@Suite("Local stats")
struct StatsTests {
    /// Known answer: three uploaded sessions on consecutive Taipei days (one of them starting
    /// at 23:30 local, 15:30 UTC), one pending and one dead that must not count.
    @Test func statsCountUploadedSessionsOnly() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        let day = 86_400
        // origin is 2026-11-21T08:00Z = 16:00 in Taipei (UTC+8).
        let summaries = [
            Sessions.summary(1, offset: 0, energy: 100, distance: 10_000, duration: 1_800),
            Sessions.summary(2, offset: 55_800, energy: 200, distance: 20_000, duration: 600),  // 23:30Z = 22nd 07:30 local
            Sessions.summary(3, offset: 2 * day + 27_000, energy: 50, distance: 5_000, duration: 900),  // 23rd 15:30Z = 23:30 local
            Sessions.summary(4, offset: 3 * day, energy: 999, distance: 999, duration: 999),
            Sessions.summary(5, offset: 4 * day, energy: 999, distance: 999, duration: 999),
        ]
        try await store.enqueue(summaries)
        try await store.record([
            Sessions.id(1): .uploaded, Sessions.id(2): .uploaded, Sessions.id(3): .uploaded,
            Sessions.id(5): .dead(error: "validation_error"),
        ])
        let taipei = try #require(TimeZone(identifier: "Asia/Taipei"))
        let stats = try await store.localStats(timeZone: taipei)
        #expect(stats == WorkoutStats(
            totalCount: 3, totalEnergy: 350, totalDistance: 35_000, totalDuration: 3_300, streak: 3,
            lastWorkoutDate: LocalDate(year: 2026, month: 11, day: 23)))
        // The same sessions in UTC fall on the 21st, 21st and 23rd: the 22nd is missing, so
        // the streak is 1.
        let utc = try #require(TimeZone(identifier: "UTC"))
        let inUTC = try await store.localStats(timeZone: utc)
        #expect(inUTC.streak == 1)
        #expect(inUTC.lastWorkoutDate == LocalDate(year: 2026, month: 11, day: 23))
        #expect(stats == WorkoutStats(summaries: summaries.prefix(3), timeZone: taipei))
        #expect(inUTC == WorkoutStats(summaries: summaries.prefix(3), timeZone: utc))
    }

    @Test func noSessionsMeansZeroStats() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        let stats = try await store.localStats(timeZone: .gmt)
        #expect(stats == WorkoutStats(totalCount: 0, totalEnergy: 0, totalDistance: 0, totalDuration: 0, streak: 0, lastWorkoutDate: nil))
    }

    @Test func storedStatsRoundTrip() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock.atOrigin()
        let store = try GatewayStore(directory: directory.path, clock: clock.wall)
        #expect(try await store.storedStats() == nil)
        let stats = WorkoutStats(
            totalCount: 150, totalEnergy: 25_000, totalDistance: 450_000, totalDuration: 120_000, streak: 7,
            lastWorkoutDate: LocalDate(year: 2025, month: 12, day: 24))
        try await store.saveStats(stats, source: .server)
        #expect(try await store.storedStats() == StoredStats(stats: stats, source: .server, updatedAt: Sessions.origin))
        clock.advance(.seconds(5))
        try await store.saveStats(stats, source: .gateway)
        #expect(try await store.storedStats()?.source == .gateway)
        #expect(try await store.storedStats()?.updatedAt == Sessions.origin.adding(seconds: 5))
    }
}
