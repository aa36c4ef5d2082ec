import GRDB
import Workout

/// The `handed_over` table's row: an open session of this gateway that another gateway adopted
/// (issue 37), so this one removed its checkpoint and never uploads it. Read as
/// ``HandedOverSession``.
struct HandedOverRow: Hashable, Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "handed_over"
    typealias Columns = CodingKeys

    var sessionID: String
    var machineAddress: String
    var gateway: String
    var handedOverAt: UTCTime

    enum CodingKeys: String, ColumnKey {
        case sessionID = "session_id"
        case machineAddress = "machine_address"
        case gateway
        case handedOverAt = "handed_over_at"
    }
}
