/// Where the gateway's files are: the one place their defaults are written, and the one order
/// in which the daemon, every `ftms-bridge` command and the doctor find them.
///
/// Each path is, in this order (docs/configuration.md, "Where the files are"):
/// 1. the command's flag (`--state-dir`, `--control-socket`, `--metrics-socket`, `--socket`);
/// 2. the config file's key, when the file sets it (even to its default: that is a choice);
/// 3. the directory systemd made for the unit: `$STATE_DIRECTORY` for the state directory,
///    `$RUNTIME_DIRECTORY` for both sockets;
/// 4. the default below.
///
/// The daemon takes no path flags, so for it the file comes first; an operator's command run
/// with the same config and environment therefore opens the database and the sockets the
/// daemon uses, and `--state-dir DIR` means DIR to every command alike. Written once so that
/// no program can drift from the others: a command that skipped the config file, or read
/// systemd's variable before it, would open another database than the daemon's.
package struct GatewayPaths: Sendable, Equatable {
    /// The config file the daemon and the commands read when no `--config` is given.
    package static let defaultConfigFile = "/etc/ftms-bridge/config.toml"
    /// The unit's `StateDirectory=`: the database, its journal and its reserve.
    package static let defaultStateDirectory = "/var/lib/ftms-bridge"
    /// The unit's `RuntimeDirectory=`: both sockets.
    package static let defaultRuntimeDirectory = "/run/ftms-bridge"
    /// The sockets' file names in the runtime directory.
    package static let metricsSocketName = "metrics.sock"
    package static let controlSocketName = "control.sock"
    package static let defaultMetricsSocket = defaultRuntimeDirectory + "/" + metricsSocketName
    package static let defaultControlSocket = defaultRuntimeDirectory + "/" + controlSocketName

    /// systemd's variables for `StateDirectory=` and `RuntimeDirectory=`.
    package static let stateDirectoryVariable = "STATE_DIRECTORY"
    package static let runtimeDirectoryVariable = "RUNTIME_DIRECTORY"

    /// A command's path flags; `nil` where it was not given (or the command has no such flag).
    package struct Flags: Sendable, Equatable {
        package var stateDirectory: String?
        package var metricsSocket: String?
        package var controlSocket: String?

        package init(stateDirectory: String? = nil, metricsSocket: String? = nil, controlSocket: String? = nil) {
            self.stateDirectory = stateDirectory
            self.metricsSocket = metricsSocket
            self.controlSocket = controlSocket
        }
    }

    /// One resolved path and the step that gave it, which the doctor reports.
    package struct Choice: Sendable, Equatable {
        package enum Source: Sendable, Equatable, CustomStringConvertible {
            /// The command's flag, by its name (`--state-dir`).
            case flag(String)
            /// The config file's key (`state.directory`).
            case config(String)
            /// systemd's variable (`STATE_DIRECTORY`).
            case environment(String)
            case defaultValue

            /// `--state-dir`, `config state.directory`, `STATE_DIRECTORY` or `default`.
            package var description: String {
                switch self {
                case .flag(let name): name
                case .config(let key): "config " + key
                case .environment(let variable): variable
                case .defaultValue: "default"
                }
            }
        }

        package var path: String
        package var source: Source

        package init(path: String, source: Source) {
            self.path = path
            self.source = source
        }
    }

    /// The three paths resolved here.
    package enum Kind: Sendable, CaseIterable {
        case stateDirectory, metricsSocket, controlSocket

        /// The flag that names it; `ftms-bridge watch` and `dashboard` call theirs `--socket`.
        package var flag: String {
            switch self {
            case .stateDirectory: "--state-dir"
            case .metricsSocket: "--metrics-socket"
            case .controlSocket: "--control-socket"
            }
        }

        /// The config file's key.
        package var key: String {
            switch self {
            case .stateDirectory: "state.directory"
            case .metricsSocket: "metrics_socket.path"
            case .controlSocket: "control_socket.path"
            }
        }

        var field: KeyPath<DaemonConfig, String> {
            switch self {
            case .stateDirectory: \.state.directory
            case .metricsSocket: \.metricsSocket.path
            case .controlSocket: \.controlSocket.path
            }
        }

        /// What systemd's variables make of it, and the variable's name.
        func fromSystemd(_ environment: [String: String]) -> (path: String, variable: String)? {
            switch self {
            case .stateDirectory:
                systemdDirectory(environment[stateDirectoryVariable]).map { ($0, stateDirectoryVariable) }
            case .metricsSocket:
                systemdDirectory(environment[runtimeDirectoryVariable]).map { ($0 + "/" + metricsSocketName, runtimeDirectoryVariable) }
            case .controlSocket:
                systemdDirectory(environment[runtimeDirectoryVariable]).map { ($0 + "/" + controlSocketName, runtimeDirectoryVariable) }
            }
        }

        package var defaultPath: String {
            switch self {
            case .stateDirectory: defaultStateDirectory
            case .metricsSocket: defaultMetricsSocket
            case .controlSocket: defaultControlSocket
            }
        }
    }

    /// One path: the flag, else the file's key, else systemd's directory, else the default.
    /// `config` is the file as read (its ``DaemonConfig/explicitKeys`` say which keys it set),
    /// called only when the flag is missing, so a command given its flag never reads, or fails
    /// on, a config file.
    package static func choose<Failure: Error>(
        _ kind: Kind, flag: String?, environment: [String: String], config: () throws(Failure) -> DaemonConfig
    ) throws(Failure) -> Choice {
        if let flag, !flag.isEmpty { return Choice(path: flag, source: .flag(kind.flag)) }
        let file = try config()
        if file.explicitKeys.contains(kind.key) { return Choice(path: file[keyPath: kind.field], source: .config(kind.key)) }
        if let systemd = kind.fromSystemd(environment) { return Choice(path: systemd.path, source: .environment(systemd.variable)) }
        return Choice(path: kind.defaultPath, source: .defaultValue)
    }

    package var stateDirectory: Choice
    package var metricsSocket: Choice
    package var controlSocket: Choice

    /// Every path, for a config already in hand (the daemon's, the doctor's).
    package init(flags: Flags = Flags(), environment: [String: String], config: DaemonConfig) {
        stateDirectory = Self.choose(.stateDirectory, flag: flags.stateDirectory, environment: environment) { config }
        metricsSocket = Self.choose(.metricsSocket, flag: flags.metricsSocket, environment: environment) { config }
        controlSocket = Self.choose(.controlSocket, flag: flags.controlSocket, environment: environment) { config }
    }

    /// A directory systemd announced: the first of its `:`-separated list (the unit names one
    /// each; several names in one setting arrive colon-separated, the first is the unit's own),
    /// without trailing slashes. A missing, empty or relative entry reads as "not under
    /// systemd" (`nil`).
    package static func systemdDirectory(_ value: String?) -> String? {
        guard let first = value?.split(separator: ":").first, first.hasPrefix("/") else { return nil }
        var path = String(first)
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        return path
    }
}
