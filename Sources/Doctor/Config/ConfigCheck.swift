import JSON
import DaemonConfig
import Foundation

/// Check 1: the config file. Runs first, since every other check reads its paths, bus and
/// backend from the config the daemon would use.
struct ConfigCheck: Sendable {
    static let id = "config"
    static let title = "Config"
    /// `--config`, or `nil` for the default path.
    var explicitPath: String?
    var defaultPath: String

    var path: String { explicitPath ?? defaultPath }

    /// The result, and the config the other checks use: the file's when it parses, the
    /// defaults otherwise (so a bad file still gets the rest of the report).
    func run() -> (result: CheckResult, config: DaemonConfig) {
        let path = path
        var data: [String: JSONValue] = ["path": .string(path), "explicit": .bool(explicitPath != nil)]
        guard FileManager.default.fileExists(atPath: path) else {
            data["exists"] = false
            data["defaults_in_use"] = true
            if explicitPath != nil {
                return (failed("\(path) does not exist", hint: "give the path of an existing file to --config", data), DaemonConfig())
            }
            return (CheckResult(
                id: Self.id, title: Self.title, status: .warning, detail: "\(path) does not exist: defaults in use",
                hint: "fine for a first run; docs/configuration.md documents every key", data: data), DaemonConfig())
        }
        data["exists"] = true
        guard FileManager.default.isReadableFile(atPath: path) else {
            data["defaults_in_use"] = true
            return (failed("\(path) is not readable by this user", hint: "run the doctor as root or as the service user", data), DaemonConfig())
        }
        switch ConfigLoading.load(path: path) {
        case .success(let config):
            data["defaults_in_use"] = false
            data["keys_set"] = .array(config.explicitKeys.sorted().map(JSONValue.string))
            let keys = config.explicitKeys.count
            return (CheckResult(
                id: Self.id, title: Self.title, status: .ok,
                detail: "\(path) is valid (\(keys == 0 ? "no keys set: all defaults" : keys == 1 ? "1 key set" : "\(keys) keys set"))", data: data), config)
        case .failure(.invalid(let line)):
            data["defaults_in_use"] = true
            data["error"] = .string(line)
            return (failed(
                line, hint: "fix the key named; the daemon refuses to start with this file (the checks below use the defaults)",
                data), DaemonConfig())
        }
    }

    private func failed(_ detail: String, hint: String, _ data: [String: JSONValue]) -> CheckResult {
        CheckResult(id: Self.id, title: Self.title, status: .failed, detail: detail, hint: hint, data: data)
    }
}
