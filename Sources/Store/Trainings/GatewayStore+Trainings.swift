import GRDB
import Workout

extension GatewayStore {
    public func cachedTrainings() async throws -> TrainingsCache? {
        try await read { db in
            try TrainingsCache.fetchOne(db, sql: "SELECT body, cache_timestamp FROM trainings")
        }
    }

    /// Replaces the cache with a fresh answer, stamped now.
    public func cacheTrainings(body: String) async throws {
        let now = clock.now().millisecondsSince1970
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO trainings (singleton, body, cache_timestamp) VALUES (1, ?, ?)
                    ON CONFLICT (singleton) DO UPDATE SET body = excluded.body, cache_timestamp = excluded.cache_timestamp
                    """,
                arguments: [body, now])
        }
    }
}
