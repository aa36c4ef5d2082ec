import Clocks

/// The bytes of one notification datagram: `KEY=value` lines joined by `\n`, no trailing
/// newline and no NUL, which is what libsystemd sends.
///
/// The manager reads at most `PIPE_BUF` (4096) bytes and ignores a longer datagram whole, and
/// it splits lines at `\n` and `\r`; so a status text is made single-line and cut to
/// ``statusLimit`` bytes, and a message that would still not fit is refused before sending.
package enum NotifyMessage {
    /// Bytes of a `STATUS=` text; enough for any one-line status, far below the datagram limit.
    package static let statusLimit = 1024
    /// The manager's receive buffer (`NOTIFY_BUFFER_MAX`); a datagram must be shorter.
    package static let datagramLimit = 4096

    /// Encodes `states`; `monotonicMicroseconds` is read once, and only for ``NotifyState/reloading``.
    package static func encode(_ states: [NotifyState], monotonicMicroseconds: () -> UInt64) throws(NotifyError) -> [UInt8] {
        var lines: [String] = []
        for state in states {
            switch state {
            case .ready: lines.append("READY=1")
            case .reloading:
                lines.append("RELOADING=1")
                lines.append("MONOTONIC_USEC=\(monotonicMicroseconds())")
            case .stopping: lines.append("STOPPING=1")
            case .status(let text): lines.append("STATUS=\(sanitizedStatus(text))")
            case .watchdog: lines.append("WATCHDOG=1")
            case .watchdogTrigger: lines.append("WATCHDOG=trigger")
            case .watchdogTimeout(let timeout): lines.append("WATCHDOG_USEC=\(microseconds(timeout))")
            case .mainPID(let pid): lines.append("MAINPID=\(pid)")
            case .extendTimeout(let extra): lines.append("EXTEND_TIMEOUT_USEC=\(microseconds(extra))")
            case .errno(let code): lines.append("ERRNO=\(code)")
            }
        }
        let bytes = Array(lines.joined(separator: "\n").utf8)
        guard bytes.count < datagramLimit else { throw .messageTooLarge(bytes: bytes.count, limit: datagramLimit) }
        return bytes
    }

    /// One line of at most ``statusLimit`` bytes: every line break (`\n`, `\r`, U+2028 …) and
    /// control character, NUL included, becomes a space; a cut never splits a character and
    /// ends in `…`.
    package static func sanitizedStatus(_ text: String) -> String {
        let line = String.UnicodeScalarView(text.unicodeScalars.map { scalar in
            switch scalar.properties.generalCategory {
            case .control, .lineSeparator, .paragraphSeparator: " "
            default: scalar
            }
        })
        guard String(line).utf8.count > statusLimit else { return String(line) }
        let ellipsis = "…"
        let budget = statusLimit - ellipsis.utf8.count
        var kept = String.UnicodeScalarView()
        var used = 0
        for scalar in line {
            guard used + scalar.utf8.count <= budget else { break }
            used += scalar.utf8.count
            kept.append(scalar)
        }
        return String(kept) + ellipsis
    }

    /// Whole microseconds, never negative; a duration beyond `UInt64` microseconds saturates
    /// (systemd reads the all-ones value as infinity).
    static func microseconds(_ duration: Duration) -> UInt64 {
        let microseconds = duration.microseconds
        return microseconds == .max ? .max : UInt64(clamping: microseconds)
    }
}
