/// SolidFocus's `UserStats` (`updated_stats`, `GET`/`PATCH /users/me/stats`), in its names.
public struct UserStats: Sendable, Hashable, Codable {
    public var totalCount: Int64
    /// kcal.
    public var totalEnergy: Int64
    /// Metres.
    public var totalDistance: Int64
    /// Seconds of movement.
    public var totalDuration: Int64
    /// Consecutive calendar days with a session, ending on ``lastWorkoutDate``.
    public var streak: Int64
    /// `YYYY-MM-DD`; `nil` (JSON `null`) before the first session.
    public var lastWorkoutDate: String?

    public static let empty = UserStats(totalCount: 0, totalEnergy: 0, totalDistance: 0, totalDuration: 0, streak: 0, lastWorkoutDate: nil)

    enum CodingKeys: String, CodingKey, CaseIterable {
        case totalCount = "workout_total_count"
        case totalEnergy = "workout_total_energy"
        case totalDistance = "workout_total_distance"
        case totalDuration = "workout_total_duration"
        case streak = "workout_streak"
        case lastWorkoutDate = "last_workout_date"
    }

    /// `last_workout_date` is always present, `null` when there is none: a client comparing
    /// stats field by field sees every field.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(totalCount, forKey: .totalCount)
        try container.encode(totalEnergy, forKey: .totalEnergy)
        try container.encode(totalDistance, forKey: .totalDistance)
        try container.encode(totalDuration, forKey: .totalDuration)
        try container.encode(streak, forKey: .streak)
        try container.encode(lastWorkoutDate, forKey: .lastWorkoutDate)
    }
}
