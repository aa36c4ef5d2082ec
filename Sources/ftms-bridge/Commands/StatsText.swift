import JSON
import Workout

/// SolidFocus's stats as one readable line.
enum StatsText {
    static func line(_ stats: WorkoutStats) -> String {
        "\(stats.totalCount) workouts, \(stats.totalEnergy) kcal, \(stats.totalDistance) m, "
            + "\(ReplayTable.clock(stats.totalDuration)) moving, streak \(stats.streak) days"
            + (stats.lastWorkoutDate.map { ", last on \($0)" } ?? "")
    }
}

/// A JSON object as one line with sorted keys, for the `--json` forms of `status` and `queue`.
func jsonLine(_ object: [String: JSONValue]) -> String {
    JSONWriter.text(.object(JSONObject(sortingKeysOf: object)))
}
