/// How one check came out. The order is the order of severity, so a report's worst status is
/// the maximum of its checks'.
package enum CheckStatus: String, Sendable, Hashable, CaseIterable, Comparable {
    /// Works as the daemon needs it.
    case ok
    /// Works, or may work, but something an operator should know about (defaults in use, a
    /// daemon not running yet, a version that cannot be read).
    case warning
    /// The daemon cannot work like this.
    case failed
    /// Not checked, because what it needs is missing (no bus, no database); the detail says which.
    case skipped

    package static func < (lhs: CheckStatus, rhs: CheckStatus) -> Bool {
        lhs.severity < rhs.severity
    }

    /// `skipped` ranks with `ok`: a check not run is never the reason for a failure, the
    /// check that made it impossible is.
    private var severity: Int {
        switch self {
        case .ok, .skipped: 0
        case .warning: 1
        case .failed: 2
        }
    }
}
