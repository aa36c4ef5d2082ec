/// A watchdog variable systemd would not have written, named with its value.
package enum WatchdogSettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidTimeout(String)
    case invalidPID(String)

    package var description: String {
        switch self {
        case .invalidTimeout(let value):
            "WATCHDOG_USEC='\(value)' is not a positive, finite number of microseconds"
        case .invalidPID(let value):
            "WATCHDOG_PID='\(value)' is not a process id"
        }
    }
}
