import CivilTime
import JSON

/// A user's stats, kept up to date one accepted session at a time.
///
/// Sums are plain integer sums of exactly what was uploaded, so a gateway that sums the same
/// sessions gets the same numbers. A session counts on the calendar day its `started_at` falls
/// on in the backend's configured zone (`--time-zone`, contract §5: the gateway's zone), and the
/// streak counts back from the latest such day while every day has a session; it is not cut
/// by today's date.
struct StatsTally: Sendable {
    private var count: Int64 = 0
    private var energy: Int64 = 0
    private var distance: Int64 = 0
    private var duration: Int64 = 0
    private var days: Set<Int64> = []

    mutating func add(_ figures: SessionFigures, on day: LocalDate) {
        count += 1
        energy = Self.sum(energy, figures.energy)
        distance = Self.sum(distance, figures.distance)
        duration = Self.sum(duration, figures.duration)
        days.insert(day.dayNumber)
    }

    /// Stops at ``JSONValue/maxSafeInteger``: absurd sessions may make absurd totals, never a
    /// trap or a number the client cannot read.
    private static func sum(_ total: Int64, _ value: Int64) -> Int64 {
        min(total + value, JSONValue.maxSafeInteger)
    }

    var stats: UserStats {
        var streak: Int64 = 0
        let last = days.max()
        if let last {
            while days.contains(last - streak) { streak += 1 }
        }
        return UserStats(
            totalCount: count, totalEnergy: energy, totalDistance: distance, totalDuration: duration, streak: streak,
            lastWorkoutDate: last.map { LocalDate(dayNumber: $0).description })
    }
}
