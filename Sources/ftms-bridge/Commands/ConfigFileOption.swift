import ArgumentParser
import DaemonConfig
import Foundation

/// `--config`: the daemon's config file, which a command reads only for a path it was not
/// given as a flag, so that without flags it opens the database and the sockets the daemon
/// uses. The order is ``GatewayPaths``'s, the daemon's and the doctor's too: the flag, else
/// the file's key, else systemd's directory, else the default.
struct ConfigFileOption: ParsableArguments {
    @Option(
        name: .customLong("config"),
        help: "The daemon's config file, read for the paths no flag names (default \(GatewayPaths.defaultConfigFile); a missing default file means defaults).")
    var path: String?

    /// The path of `kind`: `flag` when given, else as the daemon resolves it. A config file
    /// that cannot be read is the command's failure: guessing would open another directory.
    func resolve(_ kind: GatewayPaths.Kind, flag: String?) throws(ConfigError) -> String {
        try Self.resolve(kind, flag: flag, config: path)
    }

    /// As ``resolve(_:flag:)`` with `--config`'s value, for a closure that runs later.
    static func resolve(_ kind: GatewayPaths.Kind, flag: String?, config path: String?) throws(ConfigError) -> String {
        try GatewayPaths.choose(kind, flag: flag, environment: ProcessInfo.processInfo.environment) { () throws(ConfigError) in
            try DaemonConfig.load(path: path ?? GatewayPaths.defaultConfigFile, missingIsDefault: path == nil)
        }.path
    }
}
