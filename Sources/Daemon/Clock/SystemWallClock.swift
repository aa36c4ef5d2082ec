import CClock
import Clocks
package import Store
package import Upload
import Synchronization
package import Workout

#if canImport(Glibc)
import Glibc
#endif

/// The system's clocks as the daemon reads them: `CLOCK_BOOTTIME` with the boot's id for
/// every interval, `CLOCK_REALTIME` for dates, and a ``WallClockJudge``'s word on whether the
/// latter is true (contract §5).
///
/// ``now()`` is on the path of every notification, so it reads two clocks (vDSO, no system
/// call) and judges again only once a second of boottime, or at once when wall minus boottime
/// moved (a step): the kernel's state is a system call, timesyncd's flag a `stat`.
package final class SystemWallClock: Sendable {
    package let boot: BootID?
    private let synchronisedFlag: String
    private let state: Mutex<State>

    private struct State {
        var judge: WallClockJudge
        var judgedAt: Duration?
        /// systemd-timedated's `NTPSynchronized`, last read (``TimedatedSync``).
        var timedated = false
    }

    /// `floor` as ``WallClockJudge/floor``; `memory`, what a daemon before this one knew in
    /// this boot (ignored if of another boot); `synchronisedFlag`, systemd-timesyncd's mark of
    /// a synchronised clock.
    package init(
        boot: BootID?, floor: UTCTime, memory: StoredWallClock? = nil,
        synchronisedFlag: String = "/run/systemd/timesync/synchronized"
    ) {
        self.boot = boot
        self.synchronisedFlag = synchronisedFlag
        let remembered = memory.flatMap { $0.boot == boot?.value ? $0 : nil }
        state = Mutex(State(judge: WallClockJudge(floor: floor, remembering: remembered)))
    }

    /// Both clocks now, the wall clock judged. While the system clock is not trusted but the
    /// backend's time is known, the wall time given is the backend's (boottime plus its offset),
    /// and true: sessions recorded then are dated by it (contract §5).
    package func now() -> Timestamp {
        let wall = SystemClocks.realtime()
        let boottime = SystemClocks.boottime()
        let time = UTCTime(millisecondsSince1970: wall.milliseconds)
        let dated = state.withLock { state -> UTCTime? in
            var reading = WallClockJudge.Reading(wall: time, boottime: boottime, synchronised: false)
            let stepped = state.judge.offset.map { abs(reading.offset - $0) > WallClockJudge.stepThreshold } ?? true
            if stepped || state.judgedAt.map({ boottime - $0 >= .seconds(1) }) ?? true {
                reading.synchronised = state.timedated || kernelSaysSynchronised()
                state.judge.judge(reading)
                state.judgedAt = boottime
            }
            if state.judge.isTrusted { return time }
            return state.judge.datingOffset.map { UTCTime(millisecondsSince1970: boottime.milliseconds + $0) }
        }
        return Timestamp(monotonic: boottime, wall: dated ?? time, wallIsTrue: dated != nil, boot: boot)
    }

    /// systemd-timedated's word on the kernel's clock (`NTPSynchronized`), read over D-Bus where
    /// `adjtimex` is denied; judged again at once.
    package func timedated(synchronised: Bool) {
        let changed = state.withLock { state in
            defer { state.timedated = synchronised }
            if state.timedated != synchronised { state.judgedAt = nil }
            return state.timedated != synchronised
        }
        if changed { _ = now() }
    }

    /// One backend answer's `Date` (``BackendDateSample``); returns whether it made dates true
    /// where they were not (sessions waiting for them can now be dated).
    @discardableResult
    package func learn(_ sample: BackendDateSample) -> Bool {
        state.withLock { state in
            let before = state.judge.datesAreTrue
            state.judge.learn(backend: sample.offsetBounds, at: sample.receivedAt)
            return !before && state.judge.datesAreTrue
        }
    }

    /// The judge as it stands (after a fresh ``now()`` if `read`).
    package func judge(reading read: Bool = true) -> WallClockJudge {
        if read { _ = now() }
        return state.withLock { $0.judge }
    }

    /// A session was stored with true dates ending at `time`: the clock is not trusted behind it.
    package func raise(floor time: UTCTime) {
        state.withLock { $0.judge.raise(floor: time) }
    }

    /// `adjtimex`'s status (what `timedatectl` calls "System clock synchronized"), else
    /// systemd-timesyncd's flag: under the unit's `ProtectClock=`, `adjtimex` is denied (and
    /// timedated's answer, read elsewhere, covers chrony and ntpd).
    private func kernelSaysSynchronised() -> Bool {
        if ftms_clock_synchronised() == 1 { return true }
        var info = stat()
        return stat(synchronisedFlag, &info) == 0
    }

    /// This boot's id (`/proc/sys/kernel/random/boot_id`), or `nil` where it cannot be read.
    package static func currentBoot(path: String = "/proc/sys/kernel/random/boot_id") -> BootID? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 64)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return nil }
        let text = String(decoding: buffer.prefix { $0 != 0 && $0 != 0x0A }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.isEmpty ? nil : BootID(text)
    }
}
