import GRDB
public import Workout

/// What `status`, systemd's STATUS= line and Prometheus's gauges show of the store, read in
/// one transaction: one consistent picture, and one trip to the database's thread instead of
/// four (the watchdog reads it every ping, and an idle daemon should barely wake).
public struct StoreOverview: Sendable, Hashable {
    public var counts: QueueCounts
    public var oldestPendingQueuedAt: UTCTime?
    public var account: AccountState
    public var lastUpload: UploadLogEntry?
}

extension GatewayStore {
    public func overview() async throws -> StoreOverview {
        try await read { db in
            StoreOverview(
                counts: try Self.counts(db), oldestPendingQueuedAt: try Self.oldestPendingQueuedAt(db),
                account: try Self.accountState(db), lastUpload: try Self.lastUpload(db))
        }
    }
}
