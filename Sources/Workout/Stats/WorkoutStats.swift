public import FoundationEssentials

/// The user's totals (SolidFocus's `updated_stats`), computed from the kept summaries.
///
/// The gateway's copy is the source of truth ("APP wins", contract §6), so it is computed from
/// exactly the integers that were uploaded: a backend summing the same sessions gets the
/// same numbers.
public struct WorkoutStats: Sendable, Hashable, Codable {
    public var totalCount: Int
    /// kcal.
    public var totalEnergy: Int
    /// Metres.
    public var totalDistance: Int
    /// Seconds of movement.
    public var totalDuration: Int
    /// Consecutive local calendar days with a session, ending on ``lastWorkoutDate``.
    public var streak: Int
    /// The local day of the latest session; `nil` with no sessions.
    public var lastWorkoutDate: LocalDate?

    public init(
        totalCount: Int, totalEnergy: Int, totalDistance: Int, totalDuration: Int, streak: Int,
        lastWorkoutDate: LocalDate?
    ) {
        self.totalCount = totalCount
        self.totalEnergy = totalEnergy
        self.totalDistance = totalDistance
        self.totalDuration = totalDuration
        self.streak = streak
        self.lastWorkoutDate = lastWorkoutDate
    }

    /// Stats of `summaries` with days in the gateway's configured `timeZone` (contract §5).
    ///
    /// A session belongs to the local day it started on: a ride from 23:40 to 00:20 is the
    /// evening's workout. The streak counts back from the latest such day, one day at a time,
    /// while every day has a session; it is not cut by today's date, which a pure function
    /// does not know (SolidFocus's server computes it the same way from the sessions alone).
    public init(summaries: some Sequence<SessionSummary>, timeZone: TimeZone) {
        var count = 0
        var energy = 0
        var distance = 0
        var duration = 0
        var days = Set<Int64>()
        for summary in summaries {
            count += 1
            energy += summary.totalEnergy
            distance += summary.totalDistance
            duration += summary.duration
            days.insert(LocalDate(summary.startedAt, in: timeZone).dayNumber)
        }
        var streak = 0
        let last = days.max()
        if let last {
            while days.contains(last - Int64(streak)) { streak += 1 }
        }
        self.init(
            totalCount: count, totalEnergy: energy, totalDistance: distance, totalDuration: duration,
            streak: streak, lastWorkoutDate: last.map(LocalDate.init(dayNumber:))
        )
    }

    enum CodingKeys: String, CodingKey {
        case totalCount = "workout_total_count"
        case totalEnergy = "workout_total_energy"
        case totalDistance = "workout_total_distance"
        case totalDuration = "workout_total_duration"
        case streak = "workout_streak"
        case lastWorkoutDate = "last_workout_date"
    }
}
