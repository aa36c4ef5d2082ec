import Clocks
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
///
/// When the system clock is not trusted, the backend's `Date` may still be (``learn(backend:at:)``):
/// many gym networks let HTTPS out and NTP not, so the backend is the one clock such a gateway
/// can reach. Its answers bound true time minus boottime to an interval ``reference``; sessions
/// are then dated by its middle (``datingOffset``), while the system clock itself stays untrusted
/// (it still reads 2000, and `status` says so).
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
            wall.millisecondsSince1970 - boottime.milliseconds
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
    /// True time minus boottime, milliseconds, as the backend's answers bound it, and the
    /// boottime of the latest answer that narrowed it.
    package private(set) var reference: ClosedRange<Int64>?
    package private(set) var referenceAt: Duration?

    /// Answers further apart than this are not combined: boottime and true time drift apart by
    /// up to a few hundred ppm on a board without a tuned oscillator (a second in an hour).
    package static let referenceLifetime = Duration.seconds(3600)

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

    /// What dates sessions now, in the order contract §5 gives: the system clock when it is
    /// trusted, else the backend's time; `nil`: nothing true is known.
    package enum Source: String, Sendable {
        case synchronised, stepped, earlier, backend
    }

    package var source: Source? {
        if let trust { return Source(rawValue: trust.rawValue) }
        return reference == nil ? nil : .backend
    }

    /// True time minus boottime, milliseconds, from the best source there is (``source``).
    package var datingOffset: Int64? {
        if trust != nil { return offset }
        return reference.map { $0.lowerBound + ($0.upperBound - $0.lowerBound) / 2 }
    }

    /// How far from the truth ``datingOffset`` may be, milliseconds (the backend's only).
    package var referenceUncertainty: Int64? {
        reference.map { ($0.upperBound - $0.lowerBound + 1) / 2 }
    }

    /// Sessions are dated truly now.
    package var datesAreTrue: Bool { datingOffset != nil }

    /// Takes in one backend answer's bounds on true time minus boottime (``BackendDateSample``),
    /// received at `boottime`. A time before the build's floor is refused (a backend with a
    /// wrong clock is no reference); bounds that do not meet the ones held, or come more than
    /// ``referenceLifetime`` after them, replace them. Returns whether it was taken.
    @discardableResult
    package mutating func learn(backend bounds: ClosedRange<Int64>, at boottime: Duration) -> Bool {
        let boot = boottime.milliseconds
        guard bounds.upperBound + boot >= floor.millisecondsSince1970 else { return false }
        if let reference, let referenceAt, boottime - referenceAt <= Self.referenceLifetime, reference.overlaps(bounds) {
            self.reference = max(reference.lowerBound, bounds.lowerBound)...min(reference.upperBound, bounds.upperBound)
        } else {
            reference = bounds
        }
        referenceAt = boottime
        return true
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
        let system: String
        if last.wall < floor {
            system = "reads \(last.wall.iso8601), before \(floor.iso8601) (this build, or a session already recorded)"
        } else {
            switch trust {
            case .synchronised?: return "synchronised"
            case .stepped?: return "stepped to a plausible time (not synchronised by the kernel's account)"
            case .earlier?: return "trusted earlier in this boot and unmoved since"
            case nil: system = "not synchronised"
            }
        }
        guard let uncertainty = referenceUncertainty else { return system }
        return system + "; sessions dated by the backend's clock (±\(Self.secondsText(uncertainty)) s)"
    }

    /// `0.6` for 600 ms.
    static func secondsText(_ milliseconds: Int64) -> String {
        "\(milliseconds / 1000).\(milliseconds % 1000 / 100)"
    }
}
