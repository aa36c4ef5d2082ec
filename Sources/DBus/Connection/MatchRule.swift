/// A D-Bus match rule for signals: what the bus should route to us, and how we route it on
/// to the right subscriber.
public struct MatchRule: Sendable, Hashable {
    public var sender: String?
    public var interface: String?
    public var member: String?
    public var path: String?
    /// Matches `path` and everything below it.
    public var pathNamespace: String?
    public var arg0: String?

    public init(
        sender: String? = nil, interface: String? = nil, member: String? = nil,
        path: String? = nil, pathNamespace: String? = nil, arg0: String? = nil
    ) {
        self.sender = sender
        self.interface = interface
        self.member = member
        self.path = path
        self.pathNamespace = pathNamespace
        self.arg0 = arg0
    }

    /// The rule as the bus daemon's AddMatch takes it.
    public var text: String {
        var parts = ["type='signal'"]
        for (key, value) in [
            ("sender", sender), ("interface", interface), ("member", member), ("path", path),
            ("path_namespace", pathNamespace), ("arg0", arg0),
        ] {
            if let value { parts.append("\(key)='\(value)'") }
        }
        return parts.joined(separator: ",")
    }

    /// Whether a received signal belongs to this rule. A well-known `sender` is left to the
    /// bus, because signals carry the owner's unique name (`:1.7`), not `org.bluez`.
    public func matches(_ message: DBusMessage) -> Bool {
        guard message.kind == .signal else { return false }
        if let sender, sender.hasPrefix(":"), message.sender != sender { return false }
        if let interface, message.interface != interface { return false }
        if let member, message.member != member { return false }
        if let path, message.path != path { return false }
        if let pathNamespace, let messagePath = message.path {
            let prefix = pathNamespace == "/" ? "/" : pathNamespace + "/"
            if messagePath != pathNamespace, !messagePath.hasPrefix(prefix) { return false }
        }
        if let arg0, message.arguments.first?.string != arg0 { return false }
        return true
    }

    func validate() throws {
        if let sender { try Validation.busName(sender) }
        if let interface { try Validation.interface(interface) }
        if let member { try Validation.member(member) }
        if let path { try Validation.objectPath(path) }
        if let pathNamespace { try Validation.objectPath(pathNamespace) }
        if let arg0 { try Validation.checkString(arg0, what: "arg0") }
        for value in [sender, interface, member, path, pathNamespace, arg0] where value?.contains("'") == true {
            throw DBusError.invalidArgument("a match rule value cannot contain a quote")
        }
    }
}
