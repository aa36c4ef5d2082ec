import GRDB
import Workout

/// The `wall_clock` table's one row (`singleton = 1`): ``StoredWallClock``, and when it was saved.
struct WallClockRow: Hashable, Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "wall_clock"

    var singleton = 1
    var bootID: String
    var offset: Int64
    var trustedOffset: Int64?
    var trust: String?
    var updatedAt: UTCTime

    enum CodingKeys: String, ColumnKey {
        case singleton
        case bootID = "boot_id"
        case offset = "offset_ms"
        case trustedOffset = "trusted_offset_ms"
        case trust
        case updatedAt = "updated_at"
    }

    init(_ state: StoredWallClock, at now: UTCTime) {
        bootID = state.boot
        offset = state.offset
        trustedOffset = state.trustedOffset
        trust = state.trust
        updatedAt = now
    }

    var state: StoredWallClock {
        StoredWallClock(boot: bootID, offset: offset, trustedOffset: trustedOffset, trust: trust)
    }
}
