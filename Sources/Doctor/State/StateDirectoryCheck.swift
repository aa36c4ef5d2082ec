#if canImport(Glibc)
import JSON
import Glibc
#endif

/// Check 5a: the state directory holding the database: there, a directory, the service
/// user's, and writable.
struct StateDirectoryCheck: Sendable {
    static let id = "state-dir"
    static let title = "State directory"

    var path: String
    var source: String
    var serviceUser: String

    /// The result, and whether there is a directory for the database check to look in.
    func run() -> (result: CheckResult, exists: Bool) {
        var data: [String: JSONValue] = ["path": .string(path), "source": .string(source)]
        let facts: FileFacts
        switch FileFacts.of(path) {
        case .failure(.missing):
            data["exists"] = false
            return (CheckResult(
                id: Self.id, title: Self.title, status: .warning, detail: "\(path) (\(source)) does not exist yet",
                hint: "systemd creates it (StateDirectory=) when the service first starts", data: data), false)
        case .failure(.unreadable(let reason)):
            data["exists"] = .null
            return (failed("cannot look at \(path): \(reason)", hint: "run the doctor as root", data), false)
        case .success(let found):
            facts = found
        }
        data.merge(facts.data) { _, new in new }
        data["exists"] = true
        guard facts.kind == .directory else {
            return (failed("\(path) is a \(facts.kind.rawValue), not a directory", hint: "move it aside; the daemon needs a directory here", data), false)
        }
        let writable = access(path, W_OK) == 0
        data["writable_by_doctor"] = .bool(writable)
        let serviceUserExists = ServiceAccount.lookUp(serviceUser) != nil
        let summary = "\(path) (\(source)): owner \(facts.owner):\(facts.group), mode \(facts.modeText)"
        if facts.mode & 0o002 != 0 {
            return (CheckResult(
                id: Self.id, title: Self.title, status: .warning, detail: "\(summary), writable by everyone",
                hint: "chmod 0750 \(path): the database holds the backend tokens", data: data), true)
        }
        if serviceUserExists, facts.owner != serviceUser {
            return (CheckResult(
                id: Self.id, title: Self.title, status: .warning, detail: "\(summary): not owned by \(serviceUser)",
                hint: "chown -R \(serviceUser): \(path) (systemd's StateDirectory= does this when the unit starts)", data: data), true)
        }
        if !serviceUserExists, !writable {
            return (CheckResult(
                id: Self.id, title: Self.title, status: .warning, detail: "\(summary): not writable by this user",
                hint: "run the doctor as the user that runs the daemon", data: data), true)
        }
        return (CheckResult(id: Self.id, title: Self.title, status: .ok, detail: summary, data: data), true)
    }

    private func failed(_ detail: String, hint: String, _ data: [String: JSONValue]) -> CheckResult {
        CheckResult(id: Self.id, title: Self.title, status: .failed, detail: detail, hint: hint, data: data)
    }
}
