public import GRDB

/// Where a stored session stands with the backend (SolidFocus's `upload_status`, plus the
/// dead-letter state of contract §6), as the `sessions` table's `upload_status` text.
public enum UploadStatus: String, Sendable, Hashable, CaseIterable, Codable, DatabaseValueConvertible {
    /// Waiting for (another) upload attempt.
    case pending
    /// The backend holds it: accepted, reported as a duplicate, or downloaded from it.
    case uploaded
    /// The backend rejected it as permanently invalid; kept for an operator, never retried
    /// until `ftms-bridge queue --retry-dead` moves it back to pending.
    case dead
}
