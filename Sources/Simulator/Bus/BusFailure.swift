/// An error reply, named and worded as bluetoothd or libdbus words it, because clients (bleak,
/// ours) match on these exact strings (docs/bluez.md "Errors").
struct BusFailure: Error, Sendable, Equatable {
    let name: String
    let message: String

    init(_ name: String, _ message: String) {
        self.name = name
        self.message = message
    }

    // MARK: org.bluez.Error (src/error.c)

    static func bluez(_ kind: String, _ message: String) -> BusFailure {
        BusFailure("org.bluez.Error." + kind, message)
    }

    static let invalidArguments = bluez("InvalidArguments", "Invalid arguments in method call")
    static let notReady = bluez("NotReady", "Resource Not Ready")
    static let inProgress = bluez("InProgress", "Operation already in progress")
    static let gattInProgress = bluez("InProgress", "In Progress")
    static let doesNotExist = bluez("DoesNotExist", "Does Not Exist")
    static let alreadyExists = bluez("AlreadyExists", "Already Exists")
    static let notSupported = bluez("NotSupported", "Operation is not supported")
    static let notConnected = bluez("NotConnected", "Not Connected")
    static let notAvailable = bluez("NotAvailable", "Operation currently not available")
    static let readNotPermitted = bluez("NotPermitted", "Read not permitted")
    static let writeNotPermitted = bluez("NotPermitted", "Write not permitted")
    static let invalidOffset = bluez("InvalidArguments", "Invalid offset")
    static let invalidLength = bluez("InvalidArguments", "Invalid Length")

    static func failed(_ message: String) -> BusFailure { bluez("Failed", message) }

    /// Any asynchronous LE connect failure in 5.66 (`-ECONNABORTED`).
    static let connectionAbortByLocal = failed("le-connection-abort-by-local")
    /// Disconnect() or a lost link while Connect() waits.
    static let connectionCanceled = failed("br-connection-canceled")
    /// An ATT request aborted by the link going down (ATT error 0).
    static let operationFailed = failed("Operation failed")

    static func attError(_ code: UInt8) -> BusFailure {
        failed("Operation failed with ATT error: 0x" + hexByte(code))
    }

    // MARK: org.freedesktop.DBus.Error (gdbus/object.c and libdbus)

    static func noSuchInterface(_ interface: String) -> BusFailure {
        BusFailure("org.freedesktop.DBus.Error.InvalidArgs", "No such interface '\(interface)'")
    }

    static func noSuchProperty(_ name: String) -> BusFailure {
        BusFailure("org.freedesktop.DBus.Error.InvalidArgs", "No such property '\(name)'")
    }

    static func readOnly(_ name: String) -> BusFailure {
        BusFailure("org.freedesktop.DBus.Error.PropertyReadOnly", "Property '\(name)' is not writable")
    }

    /// libdbus's own answer when no handler took a call (`dbus-connection.c`): UnknownObject when
    /// nothing is registered on the path or above it, UnknownMethod otherwise; same text, with
    /// its trailing newline and `(null)` for a missing interface.
    static func unknown(objectExists: Bool, member: String, signature: String, interface: String?) -> BusFailure {
        BusFailure(
            objectExists ? "org.freedesktop.DBus.Error.UnknownMethod" : "org.freedesktop.DBus.Error.UnknownObject",
            "Method \"\(member)\" with signature \"\(signature)\" on interface \"\(interface ?? "(null)")\" doesn't exist\n")
    }

    // MARK: The simulator's own controls

    static func mock(_ kind: String, _ message: String) -> BusFailure {
        BusFailure("org.bluez.Mock.Error." + kind, message)
    }
}

func hexByte(_ byte: UInt8) -> String {
    let digits = Array("0123456789abcdef")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
}
