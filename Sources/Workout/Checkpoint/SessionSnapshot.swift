/// An open session frozen for the store (SolidFocus: "every N seconds, against a crash").
///
/// `Codable` so the SQLite store can keep it as JSON. Monotonic instants inside are on the
/// saving process's clock: since version 2 that is the boot's `CLOCK_BOOTTIME`, named by
/// ``boot``, so a daemon restarted in the same boot measures its downtime exactly; across a
/// reboot only two true wall clocks (``savedAt``, ``savedWallIsTrue``) can, see
/// ``SessionEngine/restoring(_:rules:ids:at:)``. Version 1 (before the boot was kept) still
/// restores, with its downtime measured on the wall clock.
public struct SessionSnapshot: Sendable, Hashable, Codable {
    /// The layout of this value.
    public static let currentVersion = 2
    /// The layouts a store may hand back: every one this build knows how to restore.
    public static let readableVersions: ClosedRange<Int> = 1...currentVersion

    public let version: Int
    public let machine: MachineIdentity
    /// Wall clock when the snapshot was taken.
    public let savedAt: UTCTime
    let savedMonotonic: Int64
    /// Whether ``savedAt`` was a true date.
    public let savedWallIsTrue: Bool
    /// The boot ``savedMonotonic`` is on; `nil` before version 2 and for clocks of one process.
    public let boot: BootID?
    let session: OpenSession
    let disconnectedAt: Int64?

    init(
        machine: MachineIdentity, savedAt: UTCTime, savedMonotonic: Int64, savedWallIsTrue: Bool, boot: BootID?,
        session: OpenSession, disconnectedAt: Int64?
    ) {
        version = Self.currentVersion
        self.machine = machine
        self.savedAt = savedAt
        self.savedMonotonic = savedMonotonic
        self.savedWallIsTrue = savedWallIsTrue
        self.boot = boot
        self.session = session
        self.disconnectedAt = disconnectedAt
    }

    enum CodingKeys: String, CodingKey {
        case version, machine, savedAt, savedMonotonic, savedWallIsTrue, boot, session, disconnectedAt
    }

    /// Version 1 has neither the boot nor the wall clock's worth.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decode(Int.self, forKey: .version)
        machine = try container.decode(MachineIdentity.self, forKey: .machine)
        savedAt = try container.decode(UTCTime.self, forKey: .savedAt)
        savedMonotonic = try container.decode(Int64.self, forKey: .savedMonotonic)
        savedWallIsTrue = try container.decodeIfPresent(Bool.self, forKey: .savedWallIsTrue) ?? false
        boot = try container.decodeIfPresent(BootID.self, forKey: .boot)
        session = try container.decode(OpenSession.self, forKey: .session)
        disconnectedAt = try container.decodeIfPresent(Int64.self, forKey: .disconnectedAt)
    }

    public var sessionID: String { session.id }
    /// The session's start as dated when the snapshot was taken.
    public var startedAt: UTCTime { session.startDate(offset: savedOffset) }

    /// The wall clock's offset from the monotonic one when the snapshot was taken, milliseconds.
    var savedOffset: Int64 {
        Nanoseconds.subtract(savedAt.millisecondsSince1970, savedMonotonic / Nanoseconds.perMillisecond)
    }
}
