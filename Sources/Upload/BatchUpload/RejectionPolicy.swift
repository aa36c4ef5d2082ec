package import Store

/// What a `failed_sessions` entry does to a session (contract §6: stays pending with
/// `retry_count + 1`, or goes to dead-letter when permanently invalid).
///
/// "Permanently" is judged by repetition, not by one answer: a backend may refuse a session
/// for a passing reason under a permanent-sounding code (a validation service that was
/// down), and a dead session waits for an operator. So a validation-class refusal
/// dead-letters only on its ``permanentLimit``-th time, and any other refusal after
/// ``otherLimit`` times (a poison session must not be retried forever). A duplicate reported
/// as a failure is a success: the backend holds the session.
package struct RejectionPolicy: Sendable, Hashable {
    /// Codes meaning "this session is wrong" (SolidFocus: `validation_error`).
    package var permanentCodes: Set<String> = ["validation_error", "invalid_session", "schema_error", "invalid_request"]
    /// Codes meaning "already stored" (SolidFocus's error table: `duplicate_session`).
    package var duplicateCodes: Set<String> = ["duplicate_session", "duplicate"]
    package var permanentLimit = 3
    package var otherLimit = 10

    package init() {}

    package func outcome(of failure: BatchUploadAnswer.Failure, for session: PendingSession) -> SessionOutcome {
        if duplicateCodes.contains(failure.error) { return .uploaded }
        let limit = permanentCodes.contains(failure.error) ? permanentLimit : otherLimit
        return session.rejectionCount + 1 >= limit ? .dead(error: failure.line) : .retry(error: failure.line)
    }
}
