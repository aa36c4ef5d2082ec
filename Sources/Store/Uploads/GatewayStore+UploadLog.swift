import GRDB
import Workout

extension GatewayStore {
    public func lastUpload() async throws -> UploadLogEntry? {
        try await read(Self.lastUpload)
    }

    static func lastUpload(_ db: Database) throws -> UploadLogEntry? {
        try UploadLogEntry.fetchOne(db, sql: "SELECT finished_at, result, succeeded FROM upload_log")
    }

    public func logUpload(result: String, succeeded: Bool) async throws {
        let now = clock.now().millisecondsSince1970
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO upload_log (singleton, finished_at, result, succeeded) VALUES (1, ?, ?, ?)
                    ON CONFLICT (singleton) DO UPDATE SET finished_at = excluded.finished_at, result = excluded.result,
                    succeeded = excluded.succeeded
                    """,
                arguments: [now, result, succeeded])
        }
    }
}
