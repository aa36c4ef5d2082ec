import CDBus

/// Appends ``DBusValue``s to a message through `DBusMessageIter`, validating first.
enum MessageWriter {
    static func append(_ values: [DBusValue], to message: OpaquePointer) throws {
        var iterator = DBusMessageIter()
        dbus_message_iter_init_append(message, &iterator)
        for value in values {
            try append(value, to: &iterator)
        }
    }

    static func append(_ value: DBusValue, to iterator: inout DBusMessageIter) throws {
        switch value {
        case .byte(let raw): try basic(raw, &iterator)
        case .bool(let flag): try basic(DBusBoolean(flag), &iterator)
        case .int16(let raw): try basic(raw, &iterator)
        case .uint16(let raw): try basic(raw, &iterator)
        case .int32(let raw): try basic(raw, &iterator)
        case .uint32(let raw): try basic(raw, &iterator)
        case .int64(let raw): try basic(raw, &iterator)
        case .uint64(let raw): try basic(raw, &iterator)
        case .double(let raw): try basic(raw, &iterator)
        case .unixFD(let descriptor):
            // libdbus dups the descriptor into the message: the value keeps its own.
            guard let number = descriptor.number else { throw DBusError.invalidArgument("a file descriptor that was already taken or closed") }
            guard iterator.appendFixedBasic(DBusFileDescriptorNumber(number)) else {
                throw DBusError.invalidArgument("cannot pass file descriptor \(number) (out of memory, or not a descriptor)")
            }
        case .string(let text):
            try Validation.checkString(text, what: "string")
            try cString(CDBUS_TYPE_STRING, text, &iterator)
        case .objectPath(let path):
            try Validation.objectPath(path)
            try cString(CDBUS_TYPE_OBJECT_PATH, path, &iterator)
        case .signature(let signature):
            try Validation.checkString(signature, what: "signature")
            guard signature.withCString({ dbus_signature_validate($0, nil) }) != 0 else {
                throw DBusError.invalidArgument("'\(signature)' is not a signature")
            }
            try cString(CDBUS_TYPE_SIGNATURE, signature, &iterator)
        case .bytes(let bytes):
            try container(CDBUS_TYPE_ARRAY, signature: "y", &iterator) { sub in
                try bytes.withUnsafeBufferPointer { buffer in
                    var base = buffer.baseAddress
                    guard dbus_message_iter_append_fixed_array(&sub, CDBUS_TYPE_BYTE, &base, Int32(buffer.count)) != 0 else {
                        throw DBusError.invalidArgument("out of memory appending \(buffer.count) bytes")
                    }
                }
            }
        case .array(let element, let values):
            try Validation.singleSignature(element)
            try container(CDBUS_TYPE_ARRAY, signature: element, &iterator) { sub in
                for value in values {
                    guard value.signature == element else {
                        throw DBusError.invalidArgument("array of '\(element)' holds a '\(value.signature)'")
                    }
                    try append(value, to: &sub)
                }
            }
        case .dictionary(let key, let valueType, let entries):
            let entrySignature = "{" + key + valueType + "}"
            try Validation.singleSignature("a" + entrySignature)
            try container(CDBUS_TYPE_ARRAY, signature: entrySignature, &iterator) { sub in
                for entry in entries {
                    guard entry.key.signature == key, entry.value.signature == valueType else {
                        throw DBusError.invalidArgument("dictionary a\(entrySignature) holds a {\(entry.key.signature)\(entry.value.signature)}")
                    }
                    try container(CDBUS_TYPE_DICT_ENTRY, signature: nil, &sub) { pair in
                        try append(entry.key, to: &pair)
                        try append(entry.value, to: &pair)
                    }
                }
            }
        case .structure(let fields):
            guard !fields.isEmpty else { throw DBusError.invalidArgument("an empty struct has no D-Bus type") }
            try container(CDBUS_TYPE_STRUCT, signature: nil, &iterator) { sub in
                for field in fields { try append(field, to: &sub) }
            }
        case .variant(let inner):
            try Validation.singleSignature(inner.signature)
            try container(CDBUS_TYPE_VARIANT, signature: inner.signature, &iterator) { sub in
                try append(inner, to: &sub)
            }
        }
    }

    private static func basic<T: DBusFixedBasic>(_ value: T, _ iterator: inout DBusMessageIter) throws {
        guard iterator.appendFixedBasic(value) else {
            throw DBusError.invalidArgument("out of memory appending a value")
        }
    }

    private static func cString(_ type: Int32, _ text: String, _ iterator: inout DBusMessageIter) throws {
        try text.withCString { pointer in
            var cString: UnsafePointer<CChar>? = pointer
            guard dbus_message_iter_append_basic(&iterator, type, &cString) != 0 else {
                throw DBusError.invalidArgument("out of memory appending a string")
            }
        }
    }

    private static func container(
        _ type: Int32, signature: String?, _ iterator: inout DBusMessageIter,
        _ body: (inout DBusMessageIter) throws -> Void
    ) throws {
        var sub = DBusMessageIter()
        let opened: dbus_bool_t
        if let signature {
            opened = signature.withCString { dbus_message_iter_open_container(&iterator, type, $0, &sub) }
        } else {
            opened = dbus_message_iter_open_container(&iterator, type, nil, &sub)
        }
        guard opened != 0 else { throw DBusError.invalidArgument("out of memory opening a container") }
        do {
            try body(&sub)
        } catch {
            dbus_message_iter_abandon_container(&iterator, &sub)
            throw error
        }
        guard dbus_message_iter_close_container(&iterator, &sub) != 0 else {
            throw DBusError.invalidArgument("out of memory closing a container")
        }
    }
}
