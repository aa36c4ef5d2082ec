import Foundation

/// The rules of dbus-daemon's policy files that decide whether a client may call
/// `org.bluez`, and the verdict for one account.
///
/// dbus-daemon applies `context="default"` policies first, then those for each of the
/// client's groups, then for its user, then `context="mandatory"`; within each, file order;
/// and the last rule that matches a message wins (dbus-daemon(1), "The <policy> element").
/// Only whole-destination rules are weighed: an `allow send_destination="org.bluez"
/// send_interface="…"` opens one interface, not BlueZ.
struct BusPolicy: Sendable, Hashable {
    static let destination = "org.bluez"

    /// Who a `<policy>` element applies to.
    enum Scope: Sendable, Hashable, CustomStringConvertible {
        case everyone
        case group(String)
        case user(String)
        case atConsole
        case mandatory

        var description: String {
            switch self {
            case .everyone: "context default"
            case .group(let name): "group \(name)"
            case .user(let name): "user \(name)"
            case .atConsole: "at_console"
            case .mandatory: "context mandatory"
            }
        }
    }

    struct Rule: Sendable, Hashable {
        var allow: Bool
        var scope: Scope
        var file: String
        var line: Int

        var place: String { "\((file as NSString).lastPathComponent):\(line)" }
    }

    /// Every whole-`org.bluez` send rule, in file order.
    var rules: [Rule] = []

    /// Adds the rules of one parsed file.
    mutating func add(_ root: PolicyXML.Element, file: String) {
        guard root.name == "busconfig" else { return }
        for policy in root.children where policy.name == "policy" {
            guard let scope = Self.scope(of: policy.attributes) else { continue }
            for rule in policy.children where rule.name == "allow" || rule.name == "deny" {
                guard Self.coversAllOfBlueZ(rule.attributes) else { continue }
                rules.append(Rule(allow: rule.name == "allow", scope: scope, file: file, line: rule.line))
            }
        }
    }

    /// The rule that decides for an account, or `nil` when no rule speaks: then system.conf's
    /// `<deny send_type="method_call"/>` stands, and the call is refused.
    func deciding(user: String, groups: [String]) -> Rule? {
        let order: [(Scope) -> Bool] = [
            { $0 == .everyone },
            { if case .group(let name) = $0 { groups.contains(name) } else { false } },
            { $0 == .user(user) || $0 == .user("*") },
            { $0 == .mandatory },
        ]
        return order.flatMap { applies in rules.filter { applies($0.scope) } }.last
    }

    private static func scope(of attributes: [String: String]) -> Scope? {
        if let context = attributes["context"] {
            return context == "default" ? .everyone : context == "mandatory" ? .mandatory : nil
        }
        if let group = attributes["group"] { return .group(group) }
        if let user = attributes["user"] { return .user(user) }
        if attributes["at_console"] == "true" { return .atConsole }
        return nil
    }

    /// `send_destination="org.bluez"` (or `*`), with nothing narrowing it but the message type
    /// being a method call.
    private static func coversAllOfBlueZ(_ attributes: [String: String]) -> Bool {
        guard let destination = attributes["send_destination"], destination == Self.destination || destination == "*" else {
            return false
        }
        return attributes.allSatisfy { key, value in
            key == "send_destination" || (key == "send_type" && (value == "method_call" || value == "*"))
        }
    }
}
