/// Why the daemon refused to start: one line for the journal, and exit status 1.
public struct DaemonError: Error, Sendable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
