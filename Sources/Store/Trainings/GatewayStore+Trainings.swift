import GRDB
import Workout

extension GatewayStore {
    public func cachedTrainings() async throws -> TrainingsCache? {
        try await read { db in try TrainingsCache.fetchOne(db) }
    }

    /// Replaces the cache with a fresh answer, stamped now.
    public func cacheTrainings(body: String) async throws {
        let cache = TrainingsCache(body: body, cacheTimestamp: clock.now())
        try await write { db in try cache.upsert(db) }
    }
}
