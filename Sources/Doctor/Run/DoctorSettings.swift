import DaemonConfig

/// The paths, bus and backend the checks examine: the config's, with systemd's environment
/// and the command's flags applied the way the daemon (`ftms-bridged`) applies them.
struct DoctorSettings: Sendable {
    /// The file's config with `$STATE_DIRECTORY` and `$RUNTIME_DIRECTORY` applied.
    var config: DaemonConfig
    var bus: BusAddressChoice
    var stateDirectory: String
    /// `--state-dir`, `config state.directory`, `STATE_DIRECTORY` or `default`.
    var stateDirectorySource: String
    /// Empty when no backend is configured.
    var backendURL: String
    var backendSource: String

    init(config file: DaemonConfig, inputs: DoctorInputs) {
        config = file.applyingEnvironment(inputs.environment)
        bus = BusAddressChoice.resolve(
            flag: inputs.busAddress, configured: config.bluetooth.busAddress, environment: inputs.environment, standard: inputs.standardBusAddress)
        if let flag = inputs.stateDirectory, !flag.isEmpty {
            (stateDirectory, stateDirectorySource) = (flag, "--state-dir")
        } else {
            stateDirectory = config.state.directory
            stateDirectorySource = file.explicitKeys.contains("state.directory") ? "config state.directory"
                : config.state.directory != file.state.directory ? "STATE_DIRECTORY" : "default"
        }
        if let flag = inputs.backendURL, !flag.isEmpty {
            (backendURL, backendSource) = (flag, "--backend")
        } else {
            (backendURL, backendSource) = (config.backend.url, "config backend.url")
        }
    }
}
