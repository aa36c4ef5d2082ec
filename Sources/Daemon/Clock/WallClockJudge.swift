package import Store
package import Workout

/// Whether the system's wall clock tells true dates (contract §5), decided from what the daemon
/// can read: no I/O here, readings come in.
///
/// A gateway without a real-time clock boots at 2000-01-01 (or at its last shutdown) and NTP
/// steps it minutes later. The clock is trusted when:
/// - the kernel says it is synchronised (`adjtimex`, as `timedatectl` reads it, or
///   systemd-timesyncd's flag), or
/// - it was seen to step (wall minus `CLOCK_BOOTTIME` moving by more than ``stepThreshold``):
///   whoever stepped it, NTP or an operator, had a reason, and the kernel's own flag cannot be
///   read everywhere (the unit's `ProtectClock=` denies `adjtimex`), or
/// - it was trusted earlier in this boot and has not moved since (a restarted daemon carries
///   that on through the store);
///
/// and never while it reads before the ``floor``: this build's date and the end of the latest
/// session the store holds with true dates. A clock at 2000-01-01 is never a true date, and
/// neither is one stepped back behind a session already recorded.
package struct WallClockJudge: Sendable, Equatable {
    /// Why the clock is trusted.
    package enum Trust: String, Sendable, Codable {
        case synchronised
        case stepped
        /// Trusted earlier in this boot, by a daemon before this one, and unmoved since.
        case earlier
    }

    /// One look at the clocks.
    package struct Reading: Sendable, Equatable {
        package var wall: UTCTime
        package var boottime: Duration
        /// The kernel (or timesyncd) says the clock is synchronised.
        package var synchronised: Bool

        package init(wall: UTCTime, boottime: Duration, synchronised: Bool) {
            self.wall = wall
            self.boottime = boottime
            self.synchronised = synchronised
        }

        /// Wall minus boottime, milliseconds: the wall-clock time of the boot.
        package var offset: Int64 {
            wall.millisecondsSince1970 - boottime.components.seconds * 1000 - boottime.components.attoseconds / 1_000_000_000_000_000
        }
    }

    /// More than this between two readings' offsets is a step, not drift or slewing (NTP slews
    /// at most 0.5 ms a second).
    package static let stepThreshold: Int64 = 1000

    package private(set) var floor: UTCTime
    package private(set) var trust: Trust?
    package private(set) var offset: Int64?
    package private(set) var trustedOffset: Int64?
    /// The last reading judged.
    package private(set) var last: Reading?

    /// `memory`: what a judge of this boot knew before (a daemon before this one, through the
    /// store); its trust is taken up again only once a reading shows the clock unmoved.
    package init(floor: UTCTime, remembering memory: StoredWallClock? = nil) {
        self.floor = floor
        offset = memory?.offset
        trustedOffset = memory?.trustedOffset
        trust = nil
    }

    package var isTrusted: Bool { trust != nil }

    /// Judges `reading`; returns whether its wall clock is true.
    @discardableResult
    package mutating func judge(_ reading: Reading) -> Bool {
        let offset = reading.offset
        let stepped = self.offset.map { abs(offset - $0) > Self.stepThreshold } ?? false
        self.offset = offset
        last = reading
        if reading.wall < floor {
            trust = nil
        } else if reading.synchronised {
            trust = .synchronised
            trustedOffset = offset
        } else if stepped {
            trust = .stepped
            trustedOffset = offset
        } else if let trusted = trustedOffset, abs(offset - trusted) <= Self.stepThreshold {
            trustedOffset = offset
            if trust == nil { trust = .earlier }
        } else {
            trust = nil
        }
        return trust != nil
    }

    /// A later floor: a session was stored with true dates ending at `time`.
    package mutating func raise(floor time: UTCTime) {
        floor = max(floor, time)
    }

    /// What to keep for a daemon started later in `boot`.
    package func memory(boot: BootID) -> StoredWallClock? {
        offset.map { StoredWallClock(boot: boot.value, offset: $0, trustedOffset: trustedOffset, trust: trust?.rawValue) }
    }

    /// One line for `status`: why the clock is or is not trusted.
    package var explanation: String {
        guard let last else { return "not read yet" }
        if last.wall < floor { return "reads \(last.wall.iso8601), before \(floor.iso8601) (this build, or a session already recorded)" }
        switch trust {
        case .synchronised?: return "synchronised"
        case .stepped?: return "stepped to a plausible time (not synchronised by the kernel's account)"
        case .earlier?: return "trusted earlier in this boot and unmoved since"
        case nil: return "not synchronised"
        }
    }
}
