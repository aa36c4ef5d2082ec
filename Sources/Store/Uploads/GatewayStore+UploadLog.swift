import GRDB
import Workout

extension GatewayStore {
    public func lastUpload() async throws -> UploadLogEntry? {
        try await read(Self.lastUpload)
    }

    static func lastUpload(_ db: Database) throws -> UploadLogEntry? {
        try UploadLogEntry.fetchOne(db)
    }

    public func logUpload(result: String, succeeded: Bool) async throws {
        let entry = UploadLogEntry(finishedAt: clock.now(), result: result, succeeded: succeeded)
        try await write { db in try entry.upsert(db) }
    }
}
