import CDBus
import Synchronization

/// A method call received by an exported object, with the means to answer it once, now or
/// later, from any thread. Answering later is what lets a simulator model a peer that replies
/// after it has emitted signals, as BlueZ does.
public struct DBusMethodCall: Sendable {
    public let message: DBusMessage
    public let replier: DBusMethodReplier

    public var path: String { message.path ?? "/" }
    public var interface: String { message.interface ?? "" }
    public var member: String { message.member ?? "" }
    public var arguments: [DBusValue] { message.arguments }
}

/// Sends the one reply a method call gets. A second answer is ignored.
public final class DBusMethodReplier: @unchecked Sendable {
    /// The call, referenced until answered; only the loop thread touches it.
    private let call: OpaquePointer
    private let loop: BusLoop
    private let answered = Atomic<Bool>(false)

    init(retaining call: OpaquePointer, loop: BusLoop) {
        self.call = call
        self.loop = loop
        dbus_message_ref(call)
    }

    deinit {
        // Never answered: say so rather than leave the caller waiting for its timeout.
        if !answered.load(ordering: .acquiring) {
            let call = UncheckedMessage(call)
            loop.post { [loop] in
                BusMessages.sendError(to: call.pointer, on: loop, name: "org.freedesktop.DBus.Error.NoReply", text: "the object did not answer")
                dbus_message_unref(call.pointer)
            }
        }
    }

    public func reply(_ values: [DBusValue] = []) {
        guard answered.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        let call = UncheckedMessage(call)
        loop.post { [loop] in
            defer { dbus_message_unref(call.pointer) }
            guard let connection = loop.connection, let reply = dbus_message_new_method_return(call.pointer) else { return }
            defer { dbus_message_unref(reply) }
            do {
                try MessageWriter.append(values, to: reply)
                dbus_connection_send(connection, reply, nil)
            } catch {
                BusMessages.sendError(to: call.pointer, on: loop, name: "org.freedesktop.DBus.Error.Failed", text: "\(error)")
            }
        }
    }

    public func fail(name: String, message: String = "") {
        guard answered.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        let safeName = (try? Validation.errorName(name)) != nil ? name : "org.freedesktop.DBus.Error.Failed"
        let safeText = message.utf8.contains(0) ? "" : message
        let call = UncheckedMessage(call)
        loop.post { [loop] in
            BusMessages.sendError(to: call.pointer, on: loop, name: safeName, text: safeText)
            dbus_message_unref(call.pointer)
        }
    }
}

/// A libdbus message handed between threads; the sender gives up using it.
struct UncheckedMessage: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
}

enum BusMessages {
    /// Loop thread.
    static func sendError(to call: OpaquePointer, on loop: BusLoop, name: String, text: String) {
        guard let connection = loop.connection,
            let reply = name.withCString({ cName in text.withCString { dbus_message_new_error(call, cName, $0) } })
        else { return }
        dbus_connection_send(connection, reply, nil)
        dbus_message_unref(reply)
    }
}
