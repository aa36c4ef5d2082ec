import GRDB
public import Workout
public import FoundationEssentials

extension GatewayStore {
    /// The stats of the sessions the backend holds (`uploaded`, downloaded ones included),
    /// with days in `timeZone`: what the backend's `updated_stats` must equal after an
    /// upload. Pending sessions join once they arrive; dead ones never do.
    ///
    /// Summed from the stored integer columns, the same integers the backend summed from
    /// the uploaded JSON; the streak follows ``WorkoutStats/init(summaries:timeZone:)``.
    public func localStats(timeZone: TimeZone) async throws -> WorkoutStats {
        let (totals, starts) = try await read { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*), COALESCE(SUM(total_energy), 0), COALESCE(SUM(total_distance), 0),
                    COALESCE(SUM(duration), 0) FROM sessions WHERE upload_status = 'uploaded'
                    """)
            let totals: [Int] = (0..<4).map { row?[$0] ?? 0 }
            let starts = try Int64.fetchAll(db, sql: "SELECT DISTINCT started_at FROM sessions WHERE upload_status = 'uploaded'")
            return (totals, starts)
        }
        var days = Set<Int64>()
        for start in starts {
            days.insert(LocalDate(UTCTime(millisecondsSince1970: start), in: timeZone).dayNumber)
        }
        var streak = 0
        let last = days.max()
        if let last {
            while days.contains(last - Int64(streak)) { streak += 1 }
        }
        return WorkoutStats(
            totalCount: totals[0], totalEnergy: totals[1], totalDistance: totals[2], totalDuration: totals[3],
            streak: streak, lastWorkoutDate: last.map(LocalDate.init(dayNumber:)))
    }

    public func storedStats() async throws -> StoredStats? {
        try await read(decoding: "stats") { db in try StoredStats.fetchOne(db) }
    }

    public func saveStats(_ stats: WorkoutStats, source: StoredStats.Source) async throws {
        let stored = StoredStats(stats: stats, source: source, updatedAt: clock.now())
        try await write { db in try stored.upsert(db) }
    }
}
