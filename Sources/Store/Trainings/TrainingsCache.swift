public import Workout

/// The cached `GET /trainings` answer (SolidFocus Flow 1 step 4.2), with its `cache_timestamp`.
public struct TrainingsCache: Sendable, Hashable {
    /// The `trainings` array as the backend sent it, JSON.
    public var body: String
    /// When it was fetched.
    public var cacheTimestamp: UTCTime

    public init(body: String, cacheTimestamp: UTCTime) {
        self.body = body
        self.cacheTimestamp = cacheTimestamp
    }

    /// Whether the cache is younger than `ttl` seconds at `now`.
    public func isFresh(ttl: Int, at now: UTCTime) -> Bool {
        let age = now.millisecondsSince1970 - cacheTimestamp.millisecondsSince1970
        return age >= 0 && age < Int64(ttl) * 1000
    }
}
