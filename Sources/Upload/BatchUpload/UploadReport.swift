package import Workout

/// One batch's result, as `ftms-bridge upload` prints it.
package struct BatchReport: Sendable, Hashable, CustomStringConvertible {
    /// 1-based.
    package var number: Int
    package var size: Int
    /// Newly stored by the backend.
    package var accepted = 0
    /// Already held by the backend (counted as uploaded).
    package var duplicates = 0
    /// Refused this time, still pending.
    package var retried = 0
    /// Refused for good, moved to dead-letter.
    package var dead = 0
    /// Why the whole call failed (the batch stays pending), if it did.
    package var failure: String?

    package var description: String {
        if let failure { return "batch \(number): \(size) sessions: call failed (\(failure)); left pending" }
        var parts = ["\(accepted) accepted", "\(duplicates) duplicates"]
        if retried > 0 { parts.append("\(retried) refused, left pending") }
        if dead > 0 { parts.append("\(dead) refused as invalid, dead-lettered") }
        return "batch \(number): \(size) sessions: " + parts.joined(separator: ", ")
    }
}

/// What the stats step after the last batch did (SolidFocus's Stats sync strategy).
package enum StatsSyncResult: Sendable, Hashable, CustomStringConvertible {
    /// No batch returned `updated_stats`, or the run was stopped.
    case notChecked
    /// The backend's `updated_stats` equal the gateway's: adopted.
    case agreed(WorkoutStats)
    /// They differed: the gateway's were sent with `PATCH /users/me/stats` (the gateway wins).
    case patched(local: WorkoutStats, server: WorkoutStats)
    /// They differed and the PATCH failed; retried on the next run.
    case patchFailed(String)

    package var description: String {
        switch self {
        case .notChecked: "stats: not checked"
        case .agreed: "stats: the backend agrees"
        case .patched(let local, let server):
            "stats: the backend's differed (\(server.jsonString)); sent the gateway's with PATCH /users/me/stats"
                + " (\(local.jsonString))"
        case .patchFailed(let reason): "stats: differ, and PATCH /users/me/stats failed (\(reason))"
        }
    }
}

/// One run of the batch upload procedure.
package struct UploadReport: Sendable {
    package var batches: [BatchReport] = []
    package var stats: StatsSyncResult = .notChecked
    /// The failure that ended the run early: login required, device bound elsewhere, a 429,
    /// or a 5xx with `Retry-After` (the backend asked the gateway to wait).
    package var stoppedBy: BackendError?

    package init() {}

    package var sessions: Int { batches.reduce(0) { $0 + $1.size } }
    package var uploaded: Int { batches.reduce(0) { $0 + $1.accepted + $1.duplicates } }

    /// Nothing failed: every session sent is uploaded or dead-lettered, the stats are settled.
    package var succeeded: Bool {
        stoppedBy == nil && batches.allSatisfy { $0.failure == nil && $0.retried == 0 } && {
            if case .patchFailed = stats { return false }
            return true
        }()
    }

    /// The wait the backend asked for, if a call was answered with `Retry-After`.
    package var retryAfter: Duration? { stoppedBy?.retryAfter }

    /// `45 sessions in 3 batches: 45 uploaded` / `… 25 uploaded, 20 left pending (HTTP 503)`.
    package var summary: String {
        if batches.isEmpty { return stoppedBy.map { "nothing uploaded: \($0)" } ?? "nothing to upload" }
        let failed = batches.filter { $0.failure != nil }
        let left = failed.reduce(0) { $0 + $1.size } + batches.reduce(0) { $0 + $1.retried }
        let dead = batches.reduce(0) { $0 + $1.dead }
        var line = "\(sessions) sessions in \(batches.count) batches: \(uploaded) uploaded"
        if left > 0 { line += ", \(left) left pending" }
        if dead > 0 { line += ", \(dead) dead-lettered" }
        if let reason = failed.last?.failure { line += " (\(reason))" }
        if let stoppedBy { line += "; stopped: \(stoppedBy)" }
        return line
    }
}
