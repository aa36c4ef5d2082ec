import GRDB
import Workout

/// The `checkpoints` table's row: an open session's ``SessionSnapshot``, keyed by session.
struct CheckpointRow: Hashable, Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "checkpoints"
    typealias Columns = CodingKeys

    var sessionID: String
    var machineAddress: String
    /// A JSON object in a TEXT column (GRDB's JSON column for a nested Codable value).
    var snapshot: SessionSnapshot
    var savedAt: UTCTime

    enum CodingKeys: String, ColumnKey {
        case sessionID = "session_id"
        case machineAddress = "machine_address"
        case snapshot
        case savedAt = "saved_at"
    }

    init(_ snapshot: SessionSnapshot) {
        sessionID = snapshot.sessionID
        machineAddress = snapshot.machine.address
        self.snapshot = snapshot
        savedAt = snapshot.savedAt
    }

    /// The snapshot alone, as a damaged store's rows are read (``DamagedStoreReader``): only
    /// its column need be readable.
    struct Snapshot: Decodable, FetchableRecord {
        var snapshot: SessionSnapshot
    }
}
