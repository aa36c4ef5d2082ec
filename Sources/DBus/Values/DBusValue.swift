/// A D-Bus value with its type.
///
/// Containers carry their element signature, so an empty array still knows its type and
/// encodes exactly.
public indirect enum DBusValue: Sendable, Hashable {
    case byte(UInt8)
    case bool(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// `ay` is common enough (GATT values) to deserve a compact form.
    case bytes([UInt8])
    case array(element: String, [DBusValue])
    case dictionary(key: String, value: String, [DBusDictEntry])
    case structure([DBusValue])
    case variant(DBusValue)
    /// `h`: a file descriptor passed with the message (BlueZ's AcquireNotify/AcquireWrite).
    /// Received ones are owned by the value (see ``DBusFileDescriptor``).
    case unixFD(DBusFileDescriptor)

    /// The value's D-Bus type signature.
    public var signature: String {
        switch self {
        case .byte: "y"
        case .bool: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .bytes: "ay"
        case .array(let element, _): "a" + element
        case .dictionary(let key, let value, _): "a{" + key + value + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        case .variant: "v"
        case .unixFD: "h"
        }
    }
}

/// One entry of an `a{…}` dictionary.
public struct DBusDictEntry: Sendable, Hashable {
    public var key: DBusValue
    public var value: DBusValue

    public init(_ key: DBusValue, _ value: DBusValue) {
        self.key = key
        self.value = value
    }
}
