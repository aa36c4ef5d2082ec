import DaemonConfig

/// The one place the doctor reads the config file, so that it reads it exactly as the daemon
/// does: through `DaemonConfig.load(path:)`, whose error is the one line the daemon would
/// refuse to start with.
enum ConfigLoading {
    /// The file at `path`, parsed; the failure is one line naming the key.
    static func load(path: String) -> Result<DaemonConfig, ConfigLoadFailure> {
        do {
            return .success(try DaemonConfig.load(path: path))
        } catch {
            return .failure(.invalid(error.description))
        }
    }
}

/// Why a config file that exists was not used: the file is wrong, and the daemon would refuse
/// to start with it.
enum ConfigLoadFailure: Error, Sendable, Hashable {
    case invalid(String)
}
