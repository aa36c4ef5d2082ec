import JSON
import Workout

/// Reading the backend's JSON leniently where the contract allows it (a whole number may
/// arrive as `12.0`, a date as `null`) and strictly where it matters (a missing count is an
/// error, never a guess). The document itself is read strictly, by the one ``JSONReader``.
enum JSONFields {
    static func value(_ bytes: [UInt8], _ what: String) throws -> JSONValue {
        do {
            return try JSONReader.read(bytes)
        } catch {
            throw BackendError.badResponse("\(what): not JSON (\(error))")
        }
    }

    static func object(_ bytes: [UInt8], _ what: String) throws -> JSONObject {
        guard let object = try value(bytes, what).object else { throw BackendError.badResponse("\(what): not a JSON object") }
        return object
    }

    /// A whole number, from an integer or an integral floating-point value.
    static func integer(_ value: JSONValue?) -> Int? {
        value?.integer.map { Int($0) }
    }

    /// A request body of string members, in the order given.
    static func encode(_ members: KeyValuePairs<String, String>) -> [UInt8] {
        JSONWriter.bytes(.object(JSONObject(members.map { ($0.key, .string($0.value)) })))
    }

    /// SolidFocus's stats object (`updated_stats`, `GET /users/me/stats`).
    static func stats(_ value: JSONValue?, _ what: String) throws -> WorkoutStats {
        guard let object = value?.object else { throw BackendError.badResponse("\(what): no stats object") }
        func field(_ name: String) throws -> Int {
            guard let number = integer(object[name]) else { throw BackendError.badResponse("\(what): \(name) is not a whole number") }
            return number
        }
        var lastDate: LocalDate?
        if let text = object["last_workout_date"]?.string {
            guard let date = LocalDate(text) else { throw BackendError.badResponse("\(what): last_workout_date \(text) is not YYYY-MM-DD") }
            lastDate = date
        }
        return WorkoutStats(
            totalCount: try field("workout_total_count"), totalEnergy: try field("workout_total_energy"),
            totalDistance: try field("workout_total_distance"), totalDuration: try field("workout_total_duration"),
            streak: try field("workout_streak"), lastWorkoutDate: lastDate)
    }

    /// The stats as `PATCH /users/me/stats` sends them.
    static func statsBody(_ stats: WorkoutStats) -> [UInt8] {
        Array(stats.jsonString.utf8)
    }
}
