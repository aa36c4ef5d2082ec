/// Everything a D-Bus operation can fail with, each with a one-line description.
public enum DBusError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The peer answered with a D-Bus error (e.g. `org.bluez.Error.InProgress`).
    case remote(name: String, message: String)
    /// No reply within the call's timeout.
    case timeout(member: String)
    /// The bus connection is gone; a new connection is needed.
    case disconnected
    /// Could not connect to or register on the bus.
    case connectFailed(address: String, reason: String)
    /// An argument libdbus would abort the process over, caught before it got there.
    case invalidArgument(String)
    /// A reply or message body that does not have the expected shape.
    case unexpectedReply(String)

    public var description: String {
        switch self {
        case .remote(let name, let message): "\(name): \(message)"
        case .timeout(let member): "no reply to \(member) before the timeout"
        case .disconnected: "the D-Bus connection was lost"
        case .connectFailed(let address, let reason): "cannot connect to D-Bus at \(address): \(reason)"
        case .invalidArgument(let reason): "invalid D-Bus argument: \(reason)"
        case .unexpectedReply(let reason): "unexpected D-Bus reply: \(reason)"
        }
    }

    /// The D-Bus error name, when the peer sent one.
    public var remoteName: String? {
        if case .remote(let name, _) = self { return name }
        return nil
    }
}
