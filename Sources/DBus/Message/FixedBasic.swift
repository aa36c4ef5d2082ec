import CDBus

/// A D-Bus basic type that libdbus reads and writes as a plain fixed-size value in memory
/// (`dbus_message_iter_get_basic`/`append_basic` with a pointer to it), paired with its type code.
///
/// `BitwiseCopyable` is what makes handing libdbus a raw pointer to one correct: such a value
/// holds no object reference that libdbus could tear. The type code travels with the Swift
/// type, so a read can only ever ask libdbus for the type the iterator actually holds.
protocol DBusFixedBasic: BitwiseCopyable {
    static var typeCode: Int32 { get }
    init()
}

extension UInt8: DBusFixedBasic { static var typeCode: Int32 { CDBUS_TYPE_BYTE } }
extension Int16: DBusFixedBasic { static var typeCode: Int32 { CDBUS_TYPE_INT16 } }
extension UInt16: DBusFixedBasic { static var typeCode: Int32 { CDBUS_TYPE_UINT16 } }
extension Int32: DBusFixedBasic { static var typeCode: Int32 { CDBUS_TYPE_INT32 } }
extension UInt32: DBusFixedBasic { static var typeCode: Int32 { CDBUS_TYPE_UINT32 } }
extension Int64: DBusFixedBasic { static var typeCode: Int32 { CDBUS_TYPE_INT64 } }
extension UInt64: DBusFixedBasic { static var typeCode: Int32 { CDBUS_TYPE_UINT64 } }
extension Double: DBusFixedBasic { static var typeCode: Int32 { CDBUS_TYPE_DOUBLE } }

/// `b` on the wire: libdbus stores it as a 32-bit `dbus_bool_t`, which Swift sees as `UInt32`,
/// so it needs a type of its own to carry its own type code.
struct DBusBoolean: DBusFixedBasic {
    static var typeCode: Int32 { CDBUS_TYPE_BOOLEAN }
    var raw: dbus_bool_t = 0
    init() {}
    init(_ flag: Bool) { raw = flag ? 1 : 0 }
    var value: Bool { raw != 0 }
}

/// `h` on the wire: a file descriptor number. Reading one gives the reader a new descriptor
/// (libdbus dups it out of the message), appending one makes libdbus dup it into the message.
struct DBusFileDescriptorNumber: DBusFixedBasic {
    static var typeCode: Int32 { CDBUS_TYPE_UNIX_FD }
    var raw: Int32 = -1
    init() {}
    init(_ raw: Int32) { self.raw = raw }
}

extension DBusMessageIter {
    /// The fixed basic at the iterator; `nil` when the iterator holds another type.
    mutating func fixedBasic<T: DBusFixedBasic>(_ type: T.Type = T.self) -> T? {
        guard dbus_message_iter_get_arg_type(&self) == T.typeCode else { return nil }
        var value = T()
        withUnsafeMutablePointer(to: &value) { dbus_message_iter_get_basic(&self, $0) }
        return value
    }

    /// Appends a fixed basic; false when libdbus is out of memory (or cannot dup a descriptor).
    mutating func appendFixedBasic<T: DBusFixedBasic>(_ value: T) -> Bool {
        var copy = value
        return withUnsafePointer(to: &copy) { dbus_message_iter_append_basic(&self, T.typeCode, $0) } != 0
    }
}
