public import GRDB

/// Where a stored session was recorded, as the `sessions` table's `origin` text.
public enum SessionOrigin: String, Sendable, Hashable, Codable, DatabaseValueConvertible {
    /// Recorded on this gateway.
    case gateway
    /// Downloaded from the backend at login (SolidFocus Flow 2 step 4).
    case server
}
