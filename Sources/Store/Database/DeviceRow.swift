import GRDB
import Workout

/// The `device` table's one row: the id this gateway presents as `device_id`, made once.
///
/// `singleton` is always 1 (the schema's CHECK, GRDB's single-row table), so a second row is
/// a constraint error, never a silent fork of the device id.
struct DeviceRow: Hashable, Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "device"
    typealias Columns = CodingKeys

    var singleton = 1
    var deviceID: String
    var createdAt: UTCTime

    enum CodingKeys: String, ColumnKey {
        case singleton
        case deviceID = "device_id"
        case createdAt = "created_at"
    }

    /// The device id alone: what opening a store needs, whatever else the row holds.
    static func deviceID(_ db: Database) throws -> String? {
        try select({ $0.deviceID }, as: String.self).fetchOne(db)
    }
}
