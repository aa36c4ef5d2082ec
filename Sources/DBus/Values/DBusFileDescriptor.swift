import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A file descriptor that travelled in a D-Bus message (`h`), owned by exactly one holder.
///
/// libdbus's rules (dbus-message.c, `dbus_message_iter_get_basic`): reading a `UNIX_FD`
/// argument returns a *new* descriptor, a dup of the one the message holds, which the reader
/// must close; appending one dups the caller's descriptor into the message, so the caller keeps
/// and still closes its own. This class turns that into ownership Swift can see: a received
/// descriptor is closed when the last reference to its value goes, unless someone
/// ``take()``s it first, after which closing it is the taker's job. A reply copied into several
/// places therefore never closes a descriptor twice, and one nobody wanted never leaks.
public final class DBusFileDescriptor: Sendable, Hashable, CustomStringConvertible {
    private let raw: Atomic<Int32>

    /// Takes ownership of `descriptor`; it is closed with this object unless taken.
    public init(owning descriptor: Int32) {
        raw = Atomic(descriptor)
    }

    deinit {
        let descriptor = raw.load(ordering: .acquiring)
        if descriptor >= 0 { close(descriptor) }
    }

    /// The descriptor while this object still owns it (to pass in a message, or to poll).
    public var number: Int32? {
        let descriptor = raw.load(ordering: .acquiring)
        return descriptor >= 0 ? descriptor : nil
    }

    /// Hands the descriptor over: the caller closes it from now on. `nil` if already taken.
    public func take() -> Int32? {
        let descriptor = raw.exchange(-1, ordering: .acquiringAndReleasing)
        return descriptor >= 0 ? descriptor : nil
    }

    public static func == (lhs: DBusFileDescriptor, rhs: DBusFileDescriptor) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    public var description: String { number.map { "fd \($0)" } ?? "fd (taken)" }
}
