/// How `logout` treats sessions not yet uploaded (SolidFocus Flow 6 step 1.1).
package enum LogoutMode: Sendable, Hashable {
    /// Refuse while any session is pending (the dialog's "cancel").
    case refuseIfPending
    /// Run the batch upload procedure first; refuse if anything is still pending after it.
    case uploadFirst
    /// Log out anyway; pending sessions are lost.
    case force
}

/// Why logout refused. Nothing was changed.
package enum LogoutRefusal: Error, CustomStringConvertible, Sendable {
    case pending(Int)
    case stillPending(Int, UploadReport)

    package var description: String {
        switch self {
        case .pending(let count):
            "\(count) sessions are not uploaded yet; use --upload-first to upload them, or --force to discard them"
        case .stillPending(let count, let report):
            "\(count) sessions are still pending after uploading (\(report.summary)); retry, or use --force to discard them"
        }
    }
}

/// What logout did.
package struct LogoutResult: Sendable {
    /// The upload run by ``LogoutMode/uploadFirst``.
    package var upload: UploadReport?
    /// `nil` when `POST /auth/logout` succeeded; otherwise why it failed or was skipped. The
    /// local wipe happens either way.
    package var serverCallError: String?
    /// Sessions discarded without being uploaded (pending with `--force`, and dead-letter).
    package var discarded = 0
}

extension SyncService {
    /// SolidFocus Flow 6: refuse while sessions are pending unless told to upload first or to
    /// force, then `POST /auth/logout`, then — whatever the network said — wipe everything
    /// but `device_id`.
    @discardableResult
    package func logout(_ mode: LogoutMode, onBatch: @Sendable (BatchReport) async -> Void = { _ in }) async throws -> LogoutResult {
        var result = LogoutResult()
        var counts = try await store.counts()
        if counts.pending > 0 {
            switch mode {
            case .refuseIfPending:
                throw LogoutRefusal.pending(counts.pending)
            case .uploadFirst:
                let report = try await uploader.run(onBatch: onBatch)
                result.upload = report
                counts = try await store.counts()
                if counts.pending > 0 { throw LogoutRefusal.stillPending(counts.pending, report) }
            case .force:
                break
            }
        }
        result.discarded = counts.pending + counts.dead
        do {
            let refreshToken = try await authority.currentTokens().refreshToken
            let deviceID = store.deviceID
            try await authority.authorized(proactive: false) { [client] token in
                try await client.logout(accessToken: token, deviceID: deviceID, refreshToken: refreshToken)
            }
        } catch let error as BackendError {
            result.serverCallError = error.description
        }
        try await store.wipeAccount()
        return result
    }
}
