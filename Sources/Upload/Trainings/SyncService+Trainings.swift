package import Store

/// The course list after a refresh attempt (SolidFocus Flow 1 step 4.2).
package struct TrainingsResult: Sendable {
    /// What the gateway holds now: fresh, or the old cache kept.
    package var cache: TrainingsCache?
    /// Whether `GET /trainings` was called and its answer stored.
    package var refreshed = false
    /// Why the refresh failed; the stale cache (if any) is kept.
    package var error: String?
}

extension SyncService {
    /// `GET /trainings`, cached with a TTL: a cache younger than `ttl` seconds is used as is;
    /// otherwise (or with `force`) it is refreshed, and a failed refresh keeps the old cache.
    package func trainings(ttl: Int, force: Bool = false) async throws -> TrainingsResult {
        let cached = try await store.cachedTrainings()
        if !force, let cached, cached.isFresh(ttl: ttl, at: clock.now()) {
            return TrainingsResult(cache: cached)
        }
        do {
            let body = try await authority.authorized { [client] token in try await client.trainings(accessToken: token) }
            try await store.cacheTrainings(body: body)
            return TrainingsResult(cache: try await store.cachedTrainings(), refreshed: true)
        } catch let error as BackendError {
            return TrainingsResult(cache: cached, error: error.description)
        }
    }
}
