/// Why the daemon refused to start: one line for the journal, and exit status 1.
package struct DaemonError: Error, Sendable, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}
