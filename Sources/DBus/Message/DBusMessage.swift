import CDBus

/// A received message, copied out of libdbus into Swift values so it can cross threads.
public struct DBusMessage: Sendable {
    public enum Kind: Sendable, Equatable {
        case methodCall
        case methodReturn
        case error
        case signal
        case other
    }

    public let kind: Kind
    public let path: String?
    public let interface: String?
    public let member: String?
    /// The sender's unique name (`:1.42`), never a well-known one.
    public let sender: String?
    public let destination: String?
    public let errorName: String?
    public let serial: UInt32
    public let replySerial: UInt32
    public let arguments: [DBusValue]

    public init(
        kind: Kind, path: String? = nil, interface: String? = nil, member: String? = nil,
        sender: String? = nil, destination: String? = nil, errorName: String? = nil,
        serial: UInt32 = 0, replySerial: UInt32 = 0, arguments: [DBusValue] = []
    ) {
        self.kind = kind
        self.path = path
        self.interface = interface
        self.member = member
        self.sender = sender
        self.destination = destination
        self.errorName = errorName
        self.serial = serial
        self.replySerial = replySerial
        self.arguments = arguments
    }

    /// Copies a libdbus message (borrowed: the caller keeps its reference).
    init(copying message: OpaquePointer) {
        switch dbus_message_get_type(message) {
        case DBUS_MESSAGE_TYPE_METHOD_CALL: kind = .methodCall
        case DBUS_MESSAGE_TYPE_METHOD_RETURN: kind = .methodReturn
        case DBUS_MESSAGE_TYPE_ERROR: kind = .error
        case DBUS_MESSAGE_TYPE_SIGNAL: kind = .signal
        default: kind = .other
        }
        path = dbus_message_get_path(message).map { String(cString: $0) }
        interface = dbus_message_get_interface(message).map { String(cString: $0) }
        member = dbus_message_get_member(message).map { String(cString: $0) }
        sender = dbus_message_get_sender(message).map { String(cString: $0) }
        destination = dbus_message_get_destination(message).map { String(cString: $0) }
        errorName = dbus_message_get_error_name(message).map { String(cString: $0) }
        serial = dbus_message_get_serial(message)
        replySerial = dbus_message_get_reply_serial(message)
        arguments = MessageReader.arguments(of: message)
    }

    /// The error a D-Bus error reply stands for.
    var asError: DBusError {
        let name = errorName ?? "org.freedesktop.DBus.Error.Failed"
        let text = arguments.first?.string ?? ""
        switch name {
        case "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout":
            return .timeout(member: text.isEmpty ? "call" : text)
        case "org.freedesktop.DBus.Error.Disconnected":
            return .disconnected
        default:
            return .remote(name: name, message: text)
        }
    }
}
