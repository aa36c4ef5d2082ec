/// The service watchdog systemd armed for this process (`WatchdogSec=`), read the way
/// sd_watchdog_enabled(3) reads it.
package struct WatchdogSettings: Sendable, Equatable {
    /// How long systemd waits for a `WATCHDOG=1` before it aborts the service.
    package let timeout: Duration

    package init(timeout: Duration) {
        self.timeout = timeout
    }

    /// How often to ping: half the timeout, as sd_watchdog_enabled(3) recommends, so one late
    /// ping (a slow disk, a busy core) is not yet a restart.
    package var pingInterval: Duration { timeout / 2 }

    /// The settings meant for `processID`, or nil when there is no watchdog for it:
    /// `WATCHDOG_USEC` unset, or `WATCHDOG_PID` naming another process (a child that inherited
    /// the variables must not ping in its parent's name).
    ///
    /// Values that are not what systemd writes (not decimal, zero, infinity, a PID ≤ 0) throw:
    /// something other than systemd set them, and guessing would either ping nobody or get the
    /// daemon killed.
    package static func from(environment: [String: String], processID: Int32) throws(WatchdogSettingsError) -> WatchdogSettings? {
        guard let rawTimeout = environment[SystemdVariable.watchdogMicroseconds] else { return nil }
        guard let microseconds = decimal(rawTimeout), microseconds > 0, microseconds < .max else {
            throw .invalidTimeout(rawTimeout)
        }
        if let rawPID = environment[SystemdVariable.watchdogPID] {
            guard let pid = decimal(rawPID), pid > 0, pid <= UInt64(Int32.max) else { throw .invalidPID(rawPID) }
            guard pid == UInt64(processID) else { return nil }
        }
        return WatchdogSettings(timeout: .microseconds(microseconds))
    }

    /// Digits only: no sign, no spaces, no hex; what systemd writes.
    static func decimal(_ text: String) -> UInt64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return UInt64(text)
    }
}
