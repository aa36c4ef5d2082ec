/// Where and how the metrics socket listens (contract §7).
public struct MetricsServerConfiguration: Sendable, Equatable {
    /// The socket file's mode: its owner and its group (the readers' group) read and write.
    static let mode: UInt32 = 0o660

    /// A reader's longest request line, without its newline.
    public static let maximumLineLength = 4096

    /// The socket file. No default here: the daemon's comes from its config (`metrics_socket.path`).
    public var path: String
    /// The socket file's group, by name; nil keeps the daemon's own group.
    public var group: String?
    /// Sent in every `hello` as `daemonVersion`.
    public var daemonVersion: String
    public var limits: ReaderLimits

    public init(path: String, group: String? = nil, daemonVersion: String, limits: ReaderLimits = ReaderLimits()) {
        self.path = path
        self.group = group
        self.daemonVersion = daemonVersion
        self.limits = limits
    }
}
