#if canImport(Glibc)
import Glibc
#endif
package import Logging
import CivilTime
import Clocks
import Synchronization
import ProcessOutput

/// One line per event on stderr, which systemd hands to journald (contract §10).
///
/// Under systemd (`$JOURNAL_STREAM` set) each line starts with the sd-daemon(3) priority
/// prefix (`<6>`), so `journalctl -p warning` filters by level and no timestamp is
/// duplicated. On a terminal the line carries the time and level instead. Newlines in a
/// message are flattened: one event, one line, so a log reader is never fooled by a
/// message that fakes a second entry. The level is shared by every logger made from the
/// same ``Level``, so SIGHUP can change it live.
package struct JournalLogHandler: LogHandler {
    /// The minimum level, shared and changeable at run time.
    package final class Level: Sendable {
        private let value: Mutex<Logger.Level>
        package init(_ level: Logger.Level) { value = Mutex(level) }
        package var current: Logger.Level {
            get { value.withLock { $0 } }
            set { value.withLock { $0 = newValue } }
        }
    }

    package var metadata: Logger.Metadata = [:]
    private let label: String
    private let level: Level
    private let journal: Bool

    package init(label: String, level: Level, environment: [String: String]) {
        self.label = label
        self.level = level
        journal = environment["JOURNAL_STREAM"] != nil
    }

    package var logLevel: Logger.Level {
        get { level.current }
        set { level.current = newValue }
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        var text = journal ? "<\(Self.priority(event.level))>" : "\(Self.timestamp()) \(event.level) "
        text += flattened(event.message.description)
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        if !merged.isEmpty {
            text += " " + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\(flattened($0.value.description))" }.joined(separator: " ")
        }
        text += "\n"
        text.withUTF8 { LineOutput.writeAll(UnsafeRawBufferPointer($0), to: STDERR_FILENO) }
    }

    private func flattened(_ text: String) -> String {
        guard text.contains(where: { $0 == "\n" || $0 == "\r" }) else { return text }
        return String(text.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
    }

    /// syslog(3) priorities, as journald reads them.
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    private static func timestamp() -> String {
        ISO8601.string(.milliseconds(WallClock.system.now().millisecondsSince1970), fractionDigits: 3)
    }
}
