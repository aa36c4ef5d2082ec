/// Typed views of values, for code reading replies and properties. Each returns `nil` for a
/// value of another type: BlueZ's properties are sometimes badly typed (docs/bluez.md "Failure modes"), and a
/// wrong type must be a missing value, never a crash.
extension DBusValue {
    /// The value inside any number of variant wrappers.
    public var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    public var string: String? {
        switch unwrapped {
        case .string(let value), .objectPath(let value), .signature(let value): value
        default: nil
        }
    }

    public var bool: Bool? {
        if case .bool(let value) = unwrapped { return value }
        return nil
    }

    /// Any integer type, widened; `nil` for anything else or a value that does not fit.
    public var integer: Int? {
        switch unwrapped {
        case .byte(let value): Int(value)
        case .int16(let value): Int(value)
        case .uint16(let value): Int(value)
        case .int32(let value): Int(value)
        case .uint32(let value): Int(value)
        case .int64(let value): Int(value)
        case .uint64(let value): Int(exactly: value)
        default: nil
        }
    }

    public var double: Double? {
        if case .double(let value) = unwrapped { return value }
        return nil
    }

    /// A passed file descriptor (still owned by the value: ``DBusFileDescriptor/take()`` it to keep it).
    public var fileDescriptor: DBusFileDescriptor? {
        if case .unixFD(let descriptor) = unwrapped { return descriptor }
        return nil
    }

    public var bytes: [UInt8]? {
        switch unwrapped {
        case .bytes(let value): return value
        case .array("y", let values):
            var bytes: [UInt8] = []
            for value in values {
                guard case .byte(let byte) = value else { return nil }
                bytes.append(byte)
            }
            return bytes
        default: return nil
        }
    }

    public var array: [DBusValue]? {
        switch unwrapped {
        case .array(_, let values): values
        case .bytes(let bytes): bytes.map(DBusValue.byte)
        default: nil
        }
    }

    public var strings: [String]? {
        guard let array else { return nil }
        let strings = array.compactMap(\.string)
        return strings.count == array.count ? strings : nil
    }

    /// An `a{s…}` dictionary keyed by string, the shape of D-Bus property maps.
    public var stringDictionary: [String: DBusValue]? {
        guard case .dictionary(_, _, let entries) = unwrapped else { return nil }
        var result: [String: DBusValue] = [:]
        for entry in entries {
            guard let key = entry.key.string else { return nil }
            result[key] = entry.value
        }
        return result
    }

    /// Builds `a{sv}` from a Swift dictionary, sorted by key so encoding is deterministic.
    public static func properties(_ values: [String: DBusValue]) -> DBusValue {
        .dictionary(
            key: "s", value: "v",
            values.keys.sorted().map { key in DBusDictEntry(.string(key), .variant(values[key] ?? .bool(false))) })
    }
}
