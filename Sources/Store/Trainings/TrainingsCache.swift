public import GRDB
public import Workout

/// The cached `GET /trainings` answer (SolidFocus Flow 1 step 4.2), with its `cache_timestamp`:
/// the `trainings` table's one row (`singleton = 1`).
public struct TrainingsCache: Sendable, Hashable, Codable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "trainings"

    private var singleton = 1
    /// The `trainings` array as the backend sent it, JSON text kept as sent.
    public var body: String
    /// When it was fetched.
    public var cacheTimestamp: UTCTime

    enum CodingKeys: String, CodingKey {
        case singleton, body
        case cacheTimestamp = "cache_timestamp"
    }

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
