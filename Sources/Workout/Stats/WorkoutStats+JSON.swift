public import JSON
import FTMS

extension WorkoutStats {
    /// SolidFocus's `updated_stats` object, keys in SolidFocus's order; `last_workout_date` is
    /// `null` before the first session.
    public func writeJSON(into json: inout JSONBuffer) {
        json.append(UInt8(ascii: "{"))
        json.appendKey("workout_total_count", first: true)
        json.appendInteger(totalCount)
        json.appendKey("workout_total_energy")
        json.appendInteger(totalEnergy)
        json.appendKey("workout_total_distance")
        json.appendInteger(totalDistance)
        json.appendKey("workout_total_duration")
        json.appendInteger(totalDuration)
        json.appendKey("workout_streak")
        json.appendInteger(streak)
        json.appendKey("last_workout_date")
        if let lastWorkoutDate {
            json.appendString(lastWorkoutDate.description)
        } else {
            json.append("null")
        }
        json.append(UInt8(ascii: "}"))
    }

    public var jsonString: String {
        var json = JSONBuffer(capacity: 256)
        writeJSON(into: &json)
        return json.string
    }
}
