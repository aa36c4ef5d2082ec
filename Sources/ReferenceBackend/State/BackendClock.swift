import FoundationEssentials

/// Where the backend reads the time: token lifetimes and expiry are checked against it, so
/// tests can step through an expiry without sleeping.
public protocol BackendClock: Sendable {
    /// Seconds since 1970-01-01T00:00:00Z.
    func now() -> Double
}

/// The system's wall clock.
public struct SystemBackendClock: BackendClock {
    public init() {}

    public func now() -> Double {
        Date().timeIntervalSince1970
    }
}
