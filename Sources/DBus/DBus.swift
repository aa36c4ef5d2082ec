/// A Swift binding over libdbus-1, written by hand because no maintained Swift D-Bus package
/// exists for Linux.
///
/// libdbus is safe only when used the way its sources demand (docs/bluez.md, "libdbus rules the binding keeps"), so the
/// binding is built around those rules rather than a thin wrapper:
///
/// - One thread (``BusLoop``) owns each connection and makes every libdbus call. It polls the
///   connection's watches and an eventfd, honours libdbus timeouts and dispatches. Other
///   threads post work to it. Nothing ever blocks in libdbus, so a reply never overtakes a
///   signal sent before it, and no call stalls behind a blocked reader.
/// - The public API is `async`: a method call is sent with an explicit timeout and completes
///   when its reply, error or timeout is dispatched.
/// - Values are a Swift enum (``DBusValue``) encoded and decoded through `DBusMessageIter`.
///   Everything libdbus would *abort the process* over (an invalid object path, a string with
///   a NUL, a mistyped container) is validated in Swift first and becomes a thrown
///   ``DBusError``.
/// - Signals reach subscribers through a single filter; method calls reach exported objects
///   through the same filter, so a simulator can be written on this binding too.
/// - Connections are private with exit-on-disconnect off: a vanished bus is an error the
///   caller handles, never a process exit.
public enum DBusBinding {}
