/// An open session frozen for the store (SolidFocus: "every N seconds, against a crash").
///
/// `Codable` so the SQLite store can keep it as JSON. Monotonic instants inside are on the
/// saving process's clock; ``savedAt`` (wall clock) is how a new process re-anchors them, see
/// ``SessionEngine/restoring(_:rules:ids:at:)``.
public struct SessionSnapshot: Sendable, Hashable, Codable {
    /// The layout of this value; a store may refuse snapshots of another version.
    public static let currentVersion = 1

    public let version: Int
    public let machine: MachineIdentity
    /// Wall clock when the snapshot was taken.
    public let savedAt: UTCTime
    let savedMonotonic: Int64
    let session: OpenSession
    let disconnectedAt: Int64?

    init(machine: MachineIdentity, savedAt: UTCTime, savedMonotonic: Int64, session: OpenSession, disconnectedAt: Int64?) {
        version = Self.currentVersion
        self.machine = machine
        self.savedAt = savedAt
        self.savedMonotonic = savedMonotonic
        self.session = session
        self.disconnectedAt = disconnectedAt
    }

    public var sessionID: String { session.id }
    /// Wall-clock start of the session.
    public var startedAt: UTCTime { session.startWall }
}
