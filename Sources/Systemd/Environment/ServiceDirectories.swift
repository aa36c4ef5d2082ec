/// The directories systemd created for the unit, as it announced them in the environment.
///
/// systemd passes each as a colon-separated list (one entry per name in `StateDirectory=`);
/// the unit names one each, so the first entry is the directory. A missing or relative entry
/// reads as "not under systemd", and the caller falls back to its configured path.
package struct ServiceDirectories: Sendable, Equatable {
    /// `$STATE_DIRECTORY`, e.g. `/var/lib/ftms-bridge`.
    package var state: String?
    /// `$RUNTIME_DIRECTORY`, e.g. `/run/ftms-bridge`.
    package var runtime: String?
    /// `$CONFIGURATION_DIRECTORY`, e.g. `/etc/ftms-bridge`.
    package var configuration: String?

    package init(environment: [String: String]) {
        state = Self.first(environment[SystemdVariable.stateDirectory])
        runtime = Self.first(environment[SystemdVariable.runtimeDirectory])
        configuration = Self.first(environment[SystemdVariable.configurationDirectory])
    }

    static func first(_ list: String?) -> String? {
        guard let list, let entry = list.split(separator: ":", omittingEmptySubsequences: true).first,
              entry.hasPrefix("/")
        else { return nil }
        return String(entry)
    }
}
