import DaemonConfig

/// The paths, bus and backend the checks examine: the config's, with systemd's environment
/// and the command's flags applied the way the daemon (`ftms-bridged`) applies them.
struct DoctorSettings: Sendable {
    /// The file's config with its paths resolved as every command resolves them
    /// (``GatewayPaths``: `--state-dir`, else the file's key, else systemd's directories, else
    /// the default).
    var config: DaemonConfig
    var bus: BusAddressChoice
    var stateDirectory: String
    /// `--state-dir`, `config state.directory`, `STATE_DIRECTORY` or `default`.
    var stateDirectorySource: String
    /// Empty when no backend is configured.
    var backendURL: String
    var backendSource: String

    init(config file: DaemonConfig, inputs: DoctorInputs) {
        let flags = GatewayPaths.Flags(stateDirectory: inputs.stateDirectory)
        config = file.resolvingPaths(flags, environment: inputs.environment)
        bus = BusAddressChoice.resolve(
            flag: inputs.busAddress, configured: config.bluetooth.busAddress, environment: inputs.environment, standard: inputs.standardBusAddress)
        let state = GatewayPaths(flags: flags, environment: inputs.environment, config: file).stateDirectory
        (stateDirectory, stateDirectorySource) = (state.path, state.source.description)
        if let flag = inputs.backendURL, !flag.isEmpty {
            (backendURL, backendSource) = (flag, "--backend")
        } else {
            (backendURL, backendSource) = (config.backend.url, "config backend.url")
        }
    }
}
