import Foundation
import Workout

/// Reading the backend's JSON leniently where the contract allows it (a whole number may
/// arrive as `12.0`, a date as `null`) and strictly where it matters (a missing count is an
/// error, never a guess).
enum JSONFields {
    static func object(_ bytes: [UInt8], _ what: String) throws -> [String: Any] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            throw BackendError.badResponse("\(what): not a JSON object")
        }
        return object
    }

    /// A whole number, from an integer or an integral floating-point value.
    static func integer(_ value: Any?) -> Int? {
        switch value {
        case let number as Int: return number
        case let number as Double where number == number.rounded() && abs(number) < 9e15: return Int(number)
        case let number as NSNumber:
            let double = number.doubleValue
            return double == double.rounded() && abs(double) < 9e15 ? Int(double) : nil
        default: return nil
        }
    }

    static func string(_ value: Any?) -> String? {
        value as? String
    }

    static func encode(_ object: [String: Any]) -> [UInt8] {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])).map(Array.init) ?? []
    }

    /// One JSON value (an element of a larger document) back to text, for storing as is.
    static func text(_ value: Any) -> String? {
        guard JSONSerialization.isValidJSONObject(value) else { return nil }
        return (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes]))
            .map { String(decoding: $0, as: UTF8.self) }
    }

    /// SolidFocus's stats object (`updated_stats`, `GET /users/me/stats`).
    static func stats(_ value: Any?, _ what: String) throws -> WorkoutStats {
        guard let object = value as? [String: Any] else { throw BackendError.badResponse("\(what): no stats object") }
        func field(_ name: String) throws -> Int {
            guard let number = integer(object[name]) else { throw BackendError.badResponse("\(what): \(name) is not a whole number") }
            return number
        }
        var lastDate: LocalDate?
        if let text = object["last_workout_date"] as? String {
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
