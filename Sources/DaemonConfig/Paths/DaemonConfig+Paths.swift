extension DaemonConfig {
    /// The config with its state directory and both socket paths resolved as ``GatewayPaths``
    /// resolves them: a key the file set (``explicitKeys``) wins, even at its default; where the
    /// file left one out, systemd's `$STATE_DIRECTORY` or `$RUNTIME_DIRECTORY` replaces the
    /// default. `flags` are a command's (the daemon has none).
    package func resolvingPaths(_ flags: GatewayPaths.Flags = GatewayPaths.Flags(), environment: [String: String]) -> DaemonConfig {
        let paths = GatewayPaths(flags: flags, environment: environment, config: self)
        var config = self
        config.state.directory = paths.stateDirectory.path
        config.metricsSocket.path = paths.metricsSocket.path
        config.controlSocket.path = paths.controlSocket.path
        return config
    }
}
