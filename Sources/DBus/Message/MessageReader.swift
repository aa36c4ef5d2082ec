import CDBus

/// Reads a message's arguments into ``DBusValue``s, checking each argument's type before
/// touching it (libdbus aborts on a `get_basic` of the wrong type).
enum MessageReader {
    static func arguments(of message: OpaquePointer) -> [DBusValue] {
        var iterator = DBusMessageIter()
        guard dbus_message_iter_init(message, &iterator) != 0 else { return [] }
        var values: [DBusValue] = []
        repeat {
            guard let value = read(&iterator) else { break }
            values.append(value)
        } while dbus_message_iter_next(&iterator) != 0
        return values
    }

    /// The value at the iterator; `nil` for a type this binding does not model.
    static func read(_ iterator: inout DBusMessageIter) -> DBusValue? {
        let type = dbus_message_iter_get_arg_type(&iterator)
        switch type {
        case CDBUS_TYPE_BYTE: return iterator.fixedBasic(UInt8.self).map(DBusValue.byte)
        case CDBUS_TYPE_BOOLEAN: return iterator.fixedBasic(DBusBoolean.self).map { .bool($0.value) }
        case CDBUS_TYPE_INT16: return iterator.fixedBasic(Int16.self).map(DBusValue.int16)
        case CDBUS_TYPE_UINT16: return iterator.fixedBasic(UInt16.self).map(DBusValue.uint16)
        case CDBUS_TYPE_INT32: return iterator.fixedBasic(Int32.self).map(DBusValue.int32)
        case CDBUS_TYPE_UINT32: return iterator.fixedBasic(UInt32.self).map(DBusValue.uint32)
        case CDBUS_TYPE_INT64: return iterator.fixedBasic(Int64.self).map(DBusValue.int64)
        case CDBUS_TYPE_UINT64: return iterator.fixedBasic(UInt64.self).map(DBusValue.uint64)
        case CDBUS_TYPE_DOUBLE: return iterator.fixedBasic(Double.self).map(DBusValue.double)
        case CDBUS_TYPE_UNIX_FD:
            // libdbus hands out a new descriptor (a dup of the message's), ours to close: the
            // value owns it from here. -1 means the message carried none (a peer that could not
            // pass descriptors); that is not a value this binding can model.
            guard let number = iterator.fixedBasic(DBusFileDescriptorNumber.self), number.raw >= 0 else { return nil }
            return .unixFD(DBusFileDescriptor(owning: number.raw))
        case CDBUS_TYPE_STRING: return .string(string(&iterator))
        case CDBUS_TYPE_OBJECT_PATH: return .objectPath(string(&iterator))
        case CDBUS_TYPE_SIGNATURE: return .signature(string(&iterator))
        case CDBUS_TYPE_VARIANT:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &sub)
            return read(&sub).map(DBusValue.variant)
        case CDBUS_TYPE_STRUCT:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &sub)
            var fields: [DBusValue] = []
            while dbus_message_iter_get_arg_type(&sub) != CDBUS_TYPE_INVALID {
                guard let field = read(&sub) else { return nil }
                fields.append(field)
                dbus_message_iter_next(&sub)
            }
            return .structure(fields)
        case CDBUS_TYPE_ARRAY:
            return array(&iterator)
        default:
            return nil
        }
    }

    private static func array(_ iterator: inout DBusMessageIter) -> DBusValue? {
        let elementType = dbus_message_iter_get_element_type(&iterator)
        var sub = DBusMessageIter()
        dbus_message_iter_recurse(&iterator, &sub)
        if elementType == CDBUS_TYPE_BYTE {
            var base: UnsafeMutableRawPointer? = nil
            var count: Int32 = 0
            withUnsafeMutablePointer(to: &base) { pointer in
                dbus_message_iter_get_fixed_array(&sub, pointer, &count)
            }
            guard let base, count > 0 else { return .bytes([]) }
            return .bytes(Array(UnsafeRawBufferPointer(start: base, count: Int(count))))
        }
        // From the array's own signature ("as" → "s"), which an empty array has too.
        let signature = String((signature(of: &iterator) ?? "").dropFirst())
        if elementType == CDBUS_TYPE_DICT_ENTRY {
            // Signature "{kv}": the key is one basic type, the value the rest.
            let inner = signature.dropFirst().dropLast()
            let key = String(inner.prefix(1))
            let value = String(inner.dropFirst())
            var entries: [DBusDictEntry] = []
            while dbus_message_iter_get_arg_type(&sub) == CDBUS_TYPE_DICT_ENTRY {
                var pair = DBusMessageIter()
                dbus_message_iter_recurse(&sub, &pair)
                guard let keyValue = read(&pair) else { return nil }
                dbus_message_iter_next(&pair)
                guard let entryValue = read(&pair) else { return nil }
                entries.append(DBusDictEntry(keyValue, entryValue))
                dbus_message_iter_next(&sub)
            }
            return .dictionary(key: key, value: value, entries)
        }
        var values: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&sub) != CDBUS_TYPE_INVALID {
            guard let value = read(&sub) else { return nil }
            values.append(value)
            dbus_message_iter_next(&sub)
        }
        return .array(element: signature, values)
    }

    /// The full signature of the value at the iterator.
    private static func signature(of iterator: inout DBusMessageIter) -> String? {
        guard let raw = dbus_message_iter_get_signature(&iterator) else { return nil }
        defer { dbus_free(raw) }
        return String(cString: raw)
    }

    private static func string(_ iterator: inout DBusMessageIter) -> String {
        var pointer: UnsafePointer<CChar>? = nil
        dbus_message_iter_get_basic(&iterator, &pointer)
        guard let pointer else { return "" }
        return String(cString: pointer)
    }
}
