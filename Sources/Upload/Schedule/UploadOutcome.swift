/// What a run means for the next one.
package enum UploadOutcome: Sendable, Hashable {
    /// Nothing left to retry: wait for a finished session (or the idle interval).
    case settled
    /// Work left undone for a passing reason: back off, at least `retryAfter` if given.
    case retry(retryAfter: Duration?)
    /// No call can succeed until an operator acts (login required, device bound elsewhere):
    /// check again at the idle interval, without backing off.
    case blocked
}

extension UploadReport {
    package var outcome: UploadOutcome {
        if let stoppedBy, stoppedBy.stopsUploads { return .blocked }
        return succeeded ? .settled : .retry(retryAfter: retryAfter)
    }
}
