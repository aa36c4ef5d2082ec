import GRDB
public import Workout

extension GatewayStore {
    /// When the oldest pending session was queued: the age an operator (and Prometheus)
    /// watches to see uploads stuck long before the queue grows large.
    public func oldestPendingQueuedAt() async throws -> UTCTime? {
        try await read(Self.oldestPendingQueuedAt)
    }

    static func oldestPendingQueuedAt(_ db: Database) throws -> UTCTime? {
        try Int64.fetchOne(db, sql: "SELECT MIN(created_at) FROM sessions WHERE upload_status = 'pending'")
            .map { UTCTime(millisecondsSince1970: $0) }
    }
}
