import CivilTime
import JSON

/// `PATCH /users/me/stats`: any subset of the six stats fields, applied over the current ones.
///
/// Unknown keys are refused rather than ignored: a misspelt field would otherwise leave the
/// server's figure standing while the gateway believes it won (contract §6, "the gateway wins").
struct StatsPatch: Sendable {
    let fields: JSONObject

    init(_ body: JSONValue) throws(BackendRefusal) {
        guard case .object(let fields) = body else { throw .invalidRequest("the body must be a stats object") }
        let known = Set(UserStats.CodingKeys.allCases.map(\.rawValue))
        if let unknown = fields.keys.sorted().first(where: { !known.contains($0) }) {
            throw .invalidRequest("unknown stats field \(unknown)")
        }
        guard !fields.isEmpty else { throw .invalidRequest("no stats fields to change") }
        self.fields = fields
    }

    func applied(to stats: UserStats) throws(BackendRefusal) -> UserStats {
        var result = stats
        for (key, value) in fields.members {
            switch UserStats.CodingKeys(rawValue: key) {
            case .totalCount: result.totalCount = try Self.count(key, value)
            case .totalEnergy: result.totalEnergy = try Self.count(key, value)
            case .totalDistance: result.totalDistance = try Self.count(key, value)
            case .totalDuration: result.totalDuration = try Self.count(key, value)
            case .streak: result.streak = try Self.count(key, value)
            case .lastWorkoutDate:
                if value == .null {
                    result.lastWorkoutDate = nil
                } else if let text = value.string, let day = LocalDate(text) {
                    result.lastWorkoutDate = day.description
                } else {
                    throw .invalidRequest("last_workout_date must be YYYY-MM-DD or null")
                }
            case nil: throw .invalidRequest("unknown stats field \(key)")
            }
        }
        return result
    }

    private static func count(_ key: String, _ value: JSONValue) throws(BackendRefusal) -> Int64 {
        guard let number = value.integer, number >= 0 else { throw .invalidRequest("\(key) must be a whole number ≥ 0") }
        return number
    }
}
