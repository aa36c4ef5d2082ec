package import FoundationEssentials
package import Store
import Workout

/// SolidFocus's Batch Upload Procedure, on the gateway (contract §6):
///
/// 1. pending sessions, oldest first (`started_at`), in batches of at most 20, each to
///    `POST /sessions/batch_upload`;
/// 2. per answer: accepted and duplicate sessions become `uploaded`, `failed_sessions` stay
///    pending with `retry_count + 1` or go to dead-letter (``RejectionPolicy``);
/// 3. a call that fails (network, timeout, 5xx, a malformed answer) leaves its whole batch
///    pending and the procedure goes on with the next batch;
/// 4. after the last batch, the backend's latest `updated_stats` are compared with the stats
///    the gateway computes from its own uploaded sessions: equal, they are adopted; different,
///    the gateway's are sent with `PATCH /users/me/stats` (the gateway wins).
///
/// A login problem (no tokens, refresh refused, device bound elsewhere), a 429, or any answer
/// with `Retry-After` (a 503 during maintenance) stops the run: no later call could succeed, or
/// the backend asked the gateway to wait.
/// So do ``unreachableLimit`` calls in a row that got no answer at all (timeout, connection
/// refused): the backend is down, and going on would cost a timeout per batch, over an hour
/// for a queue of 10,000. Every session stays where it is, to be retried later.
///
/// Each batch is marked in one transaction after its answer; a crash between the answer and
/// that commit leaves the batch pending, and the next run sends it again, to be reported as
/// duplicates: delivery is at least once, made exactly once by the session ids.
package struct BatchUploadProcedure: Sendable {
    package static let batchSize = 20

    package let store: GatewayStore
    package let client: BackendClient
    package let authority: TokenAuthority
    /// The zone whose days make the streak (contract §5); the backend must use the same one, or
    /// the stats differ and the gateway's win.
    package var timeZone: TimeZone
    package var policy = RejectionPolicy()
    package var batchSize = BatchUploadProcedure.batchSize
    /// Calls in a row without an answer after which the run stops.
    package var unreachableLimit = 3

    package init(store: GatewayStore, client: BackendClient, authority: TokenAuthority, timeZone: TimeZone) {
        self.store = store
        self.client = client
        self.authority = authority
        self.timeZone = timeZone
    }

    /// Runs the procedure once. `onBatch` sees each batch's result as it is stored. Throws
    /// only when the local store fails; everything the backend does is in the report, which
    /// is also logged to the store for `status`.
    @discardableResult
    package func run(onBatch: @Sendable (BatchReport) async -> Void = { _ in }) async throws -> UploadReport {
        var report = UploadReport()
        var cursor: QueueCursor?
        var serverStats: WorkoutStats?
        var unanswered = 0
        while true {
            let batch = try await store.pendingBatch(after: cursor, limit: batchSize)
            guard let last = batch.last else { break }
            cursor = QueueCursor(after: last)
            var result = BatchReport(number: report.batches.count + 1, size: batch.count)
            do {
                let jsons = batch.map(\.json)
                let answer = try await authority.authorized { [client] token in
                    try await client.batchUpload(jsons, accessToken: token)
                }
                try await apply(answer, to: batch, into: &result)
                if let stats = answer.updatedStats { serverStats = stats }
                unanswered = 0
            } catch let error as BackendError {
                result.failure = error.description
                try await store.recordFailedCall(sessionIDs: batch.map(\.sessionID), error: error.description)
                unanswered = error.isUnanswered ? unanswered + 1 : 0
                if Self.endsRun(error) || unanswered >= unreachableLimit { report.stoppedBy = error }
            }
            report.batches.append(result)
            await onBatch(result)
            if report.stoppedBy != nil { break }
        }
        if let serverStats {
            report.stats = try await settleStats(serverStats, patch: report.stoppedBy == nil)
        }
        if !report.batches.isEmpty || report.stoppedBy != nil {
            try await store.logUpload(result: report.summary, succeeded: report.succeeded)
        }
        return report
    }

    /// No later call could succeed (a login problem), or the backend asked the gateway to
    /// wait (429, or a 5xx with `Retry-After`): the remaining batches are not tried. A 5xx
    /// without one says nothing about the next batch, which is tried (SolidFocus).
    static func endsRun(_ error: BackendError) -> Bool {
        if case .rateLimited = error { return true }
        return error.retryAfter != nil || error.stopsUploads
    }

    /// Marks each session of an answered batch in one transaction.
    private func apply(_ answer: BatchUploadAnswer, to batch: [PendingSession], into result: inout BatchReport) async throws {
        let failures = Dictionary(answer.failures.map { ($0.sessionID, $0) }, uniquingKeysWith: { first, _ in first })
        var outcomes: [String: SessionOutcome] = [:]
        for session in batch {
            guard let failure = failures[session.sessionID.lowercased()] else {
                outcomes[session.sessionID] = .uploaded
                continue
            }
            let outcome = policy.outcome(of: failure, for: session)
            outcomes[session.sessionID] = outcome
            switch outcome {
            case .uploaded: result.duplicates += 1
            case .retry: result.retried += 1
            case .dead: result.dead += 1
            case .callFailed: break
            }
        }
        result.accepted = answer.successCount
        result.duplicates += answer.duplicateCount
        try await store.record(outcomes)
    }

    /// SolidFocus's stats step, once, after the last batch.
    private func settleStats(_ server: WorkoutStats, patch: Bool) async throws -> StatsSyncResult {
        let local = try await store.localStats(timeZone: timeZone)
        if local == server {
            try await store.saveStats(server, source: .server)
            return .agreed(server)
        }
        guard patch else {
            try await store.saveStats(server, source: .server)
            return .notChecked
        }
        do {
            try await authority.authorized { [client] token in try await client.patchStats(local, accessToken: token) }
            try await store.saveStats(local, source: .gateway)
            return .patched(local: local, server: server)
        } catch let error as BackendError {
            return .patchFailed(error.description)
        }
    }
}
