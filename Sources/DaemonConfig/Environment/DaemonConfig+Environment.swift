extension DaemonConfig {
    /// The config with systemd's directories in place of the defaults the file did not set:
    /// `$STATE_DIRECTORY` (from `StateDirectory=`) becomes ``State/directory``, and
    /// `$RUNTIME_DIRECTORY` (from `RuntimeDirectory=`) the directory of both sockets. A key the
    /// file set (``explicitKeys``) always wins. systemd may list several directories separated
    /// by `:`; the first is ours. A value that is not an absolute path is ignored.
    package func applyingEnvironment(_ environment: [String: String]) -> DaemonConfig {
        applyingEnvironment(environment, explicit: explicitKeys)
    }

    /// As ``applyingEnvironment(_:)``, with the set of keys the file set given explicitly.
    package func applyingEnvironment(_ environment: [String: String], explicit: Set<String>) -> DaemonConfig {
        var config = self
        if !explicit.contains("state.directory"), let directory = Self.directory(environment["STATE_DIRECTORY"]) {
            config.state.directory = directory
        }
        if let runtime = Self.directory(environment["RUNTIME_DIRECTORY"]) {
            if !explicit.contains("metrics_socket.path") { config.metricsSocket.path = runtime + "/metrics.sock" }
            if !explicit.contains("control_socket.path") { config.controlSocket.path = runtime + "/control.sock" }
        }
        return config
    }

    private static func directory(_ value: String?) -> String? {
        guard let first = value?.split(separator: ":").first, first.hasPrefix("/") else { return nil }
        var path = String(first)
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        return path
    }
}
