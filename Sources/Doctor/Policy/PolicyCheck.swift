import JSON
import Foundation

/// Check 2: may the service user call BlueZ? Reads dbus-daemon's policy files the way the
/// daemon would be judged (docs/systemd.md, "BlueZ's D-Bus policy"), and looks the user up.
struct PolicyCheck: Sendable {
    static let id = "dbus-policy"
    static let title = "D-Bus policy"

    var directories: [String]
    var user: String
    var group: String

    func run() -> CheckResult {
        var policy = BusPolicy()
        var malformed: [String] = []
        var files: [String] = []
        var mentionsBlueZ = false
        for file in Self.policyFiles(in: directories) {
            files.append(file)
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                malformed.append("\(file) is unreadable")
                continue
            }
            mentionsBlueZ = mentionsBlueZ || text.contains(BusPolicy.destination)
            do {
                policy.add(try PolicyXML.parse(text), file: file)
            } catch {
                malformed.append("\(file) is not well-formed XML (\(error))")
            }
        }
        let account = ServiceAccount.lookUp(user)
        let groups = account?.groups ?? [group]
        let decision = policy.deciding(user: user, groups: groups)
        var data: [String: JSONValue] = [
            "user": .string(user), "group": .string(group), "user_exists": .bool(account != nil),
            "group_exists": .bool(ServiceAccount.groupExists(group)),
            "user_groups": account.map { .array($0.groups.map(JSONValue.string)) } ?? .null,
            "in_group": .bool(account?.groups.contains(group) ?? false),
            "files": .array(files.map(JSONValue.string)), "malformed": .array(malformed.map(JSONValue.string)),
            "allowed": .bool(decision?.allow == true),
            "decided_by": decision.map { .string("\($0.allow ? "allow" : "deny") for \($0.scope) at \($0.place)") } ?? .null,
        ]
        data["grants"] = .array(policy.rules.filter(\.allow).map { .string("\($0.scope) at \($0.place)") })
        let trouble = malformed.isEmpty ? "" : "; " + malformed.joined(separator: "; ")
        guard let decision, decision.allow else {
            let why = decision.map { "denied for \($0.scope) at \($0.place)" }
                ?? (files.isEmpty ? "no policy files in \(directories.joined(separator: ", ")) (is bluez installed?)"
                    : !mentionsBlueZ ? "none of the \(files.count) policy files speaks of org.bluez (is bluez installed?)"
                    : "no policy file allows it")
            return CheckResult(
                id: Self.id, title: Self.title, status: .failed,
                detail: "\(user) may not call org.bluez: \(why)\(trouble)",
                hint: "install bluez (its bluetooth.conf allows group \(group)) and put \(user) in \(group): the sysusers file does (m \(user) \(group))",
                data: data)
        }
        let allowed = "allowed for \(decision.scope) at \(decision.place)"
        guard let account else {
            return CheckResult(
                id: Self.id, title: Self.title, status: .warning,
                detail: "org.bluez is \(allowed), but user \(user) does not exist\(trouble)",
                hint: "install the service: systemd-sysusers creates \(user) in group \(group)", data: data)
        }
        let member = account.groups.contains(group)
        if !member, decision.scope == .everyone {
            return CheckResult(
                id: Self.id, title: Self.title, status: .warning,
                detail: "\(user) may call org.bluez only because it is \(allowed); \(user) is not in \(group)\(trouble)",
                hint: "add \(user) to \(group) (usermod -aG \(group) \(user)) so it keeps working on images that tighten the default",
                data: data)
        }
        let status: CheckStatus = malformed.isEmpty ? .ok : .warning
        return CheckResult(
            id: Self.id, title: Self.title, status: status,
            detail: "\(user) (groups \(account.groups.joined(separator: ", "))) may call org.bluez: \(allowed)\(trouble)",
            hint: malformed.isEmpty ? nil : "fix or remove the malformed file: dbus-daemon refuses to load it", data: data)
    }

    /// `*.conf` in each directory, sorted by name within it, directories in order: the order
    /// dbus-daemon's `<includedir>` reads them.
    static func policyFiles(in directories: [String]) -> [String] {
        directories.flatMap { directory -> [String] in
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            return names.filter { $0.hasSuffix(".conf") }.sorted().map { (directory as NSString).appendingPathComponent($0) }
        }
    }
}
