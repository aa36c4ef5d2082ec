import CDBus

/// Checks for everything libdbus treats as a programming error and aborts on.
///
/// libdbus asserts on invalid names, paths and strings (`_dbus_warn_check_failed` is fatal by
/// default), and values reaching us come from the outside (a machine's name, a user's MACHINE
/// argument). Every string crossing into libdbus passes one of these first.
enum Validation {
    static func objectPath(_ path: String) throws {
        try checkString(path, what: "object path")
        guard path.withCString({ dbus_validate_path($0, nil) }) != 0 else {
            throw DBusError.invalidArgument("'\(path)' is not an object path")
        }
    }

    static func interface(_ name: String) throws {
        try checkString(name, what: "interface name")
        guard name.withCString({ dbus_validate_interface($0, nil) }) != 0 else {
            throw DBusError.invalidArgument("'\(name)' is not an interface name")
        }
    }

    static func member(_ name: String) throws {
        try checkString(name, what: "member name")
        guard name.withCString({ dbus_validate_member($0, nil) }) != 0 else {
            throw DBusError.invalidArgument("'\(name)' is not a member name")
        }
    }

    static func busName(_ name: String) throws {
        try checkString(name, what: "bus name")
        guard name.withCString({ dbus_validate_bus_name($0, nil) }) != 0 else {
            throw DBusError.invalidArgument("'\(name)' is not a bus name")
        }
    }

    static func errorName(_ name: String) throws {
        try checkString(name, what: "error name")
        guard name.withCString({ dbus_validate_error_name($0, nil) }) != 0 else {
            throw DBusError.invalidArgument("'\(name)' is not an error name")
        }
    }

    static func singleSignature(_ signature: String) throws {
        try checkString(signature, what: "signature")
        guard signature.withCString({ dbus_signature_validate_single($0, nil) }) != 0 else {
            throw DBusError.invalidArgument("'\(signature)' is not a single complete type")
        }
    }

    /// Swift strings may hold NUL, which a C string cannot; libdbus would truncate or abort.
    static func checkString(_ text: String, what: String) throws {
        guard !text.utf8.contains(0) else {
            throw DBusError.invalidArgument("\(what) contains a NUL character")
        }
    }
}
