import GRDB
import Workout

/// Open sessions another gateway carries on (issue 37: a neighbour adopted the machine from
/// this gateway's mirrored checkpoint): this gateway forgets them, never uploads them, and
/// remembers to whom they went.
extension GatewayStore {
    /// Marks `sessionID` on `machineAddress` as carried on by `gateway`, in one transaction: its
    /// checkpoint and open plot series go, and a summary of it still pending in the queue (one
    /// this gateway closed before it learnt of the adoption) goes too, with its journal copy,
    /// since the adopter's summary of the same session is the ride. A summary already uploaded
    /// stays: the backend keeps the adopter's, which ends later. From then on ``enqueue(_:machineAddress:series:timing:splitFrom:)``
    /// refuses the session, until this gateway checkpoints it again (it carries it on itself
    /// once more: ``saveAll(_:series:)`` takes the mark away). Returns whether a pending summary
    /// was removed.
    @discardableResult
    public func handOver(sessionID: String, machineAddress: String, to gateway: String) async throws -> Bool {
        let mark = HandedOverRow(sessionID: sessionID, machineAddress: machineAddress, gateway: gateway, handedOverAt: clock.now())
        let removed = try await write { db in
            try Self.removeCheckpoint(db, machineAddress: machineAddress, sessionID: sessionID)
            try Self.removeOpenSeries(db, sessionID: sessionID)
            try mark.upsert(db)
            return try QueuedSession.filter(key: sessionID).filter { $0.uploadStatus == UploadStatus.pending }.deleteAll(db) > 0
        }
        if removed, let journal { try? await database.writeWithoutTransaction { _ in try journal.remove([sessionID]) } }
        return removed
    }

    /// The sessions handed over to other gateways, newest first.
    public func handedOver() async throws -> [HandedOverSession] {
        try await read { db in
            try HandedOverRow.order { [$0.handedOverAt.desc, $0.sessionID] }.asRequest(of: HandedOverSession.self).fetchAll(db)
        }
    }

    /// Takes the handed-over mark off sessions this gateway checkpoints again.
    static let carriedOnAgainSQL = "DELETE FROM \(HandedOverRow.databaseTableName) WHERE \(HandedOverRow.Columns.sessionID.rawValue) = ?"
}
