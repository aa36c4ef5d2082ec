import JSON
import ReferenceBackend

/// Sessions for tests, valid unless a test breaks them on purpose.
enum Sessions {
    /// A fixed, valid UUID per number: `00000000-0000-4000-8000-000000000042`.
    static func id(_ number: Int) -> String {
        let digits = String(number)
        return "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - digits.count) + digits
    }

    /// Session `number`: starts on `day` of December 2025 at 07:00 UTC (plus `number` seconds,
    /// so many sessions are all distinct), 30 minutes long.
    static func make(
        _ number: Int, day: Int = 24, duration: Int64 = 1700, energy: Int64 = 250, distance: Int64 = 12_000
    ) -> JSONValue {
        let seconds = number % 60
        let minutes = number / 60 % 30
        let second = seconds < 10 ? "0\(seconds)" : "\(seconds)"
        let minute = minutes < 10 ? "0\(minutes)" : "\(minutes)"
        let dayText = day < 10 ? "0\(day)" : "\(day)"
        return [
            "session_id": .string(id(number)),
            "started_at": .string("2025-12-\(dayText)T07:\(minute):\(second)Z"),
            "ended_at": .string("2025-12-\(dayText)T08:\(minute):\(second)Z"),
            "duration": .integer(duration),
            "total_energy": .integer(energy),
            "total_distance": .integer(distance),
            "detail": ["type": "bike", "avg_power": 142.5],
        ]
    }

    /// `session` with one field replaced (or removed, for `nil`).
    static func changing(_ session: JSONValue, _ key: String, to value: JSONValue?) -> JSONValue {
        guard case .object(var fields) = session else { return session }
        fields[key] = value
        return .object(fields)
    }
}
