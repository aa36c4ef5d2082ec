import Foundation
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
func jsonLine(_ object: [String: Any]) -> String {
    let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
    return String(decoding: data, as: UTF8.self)
}
