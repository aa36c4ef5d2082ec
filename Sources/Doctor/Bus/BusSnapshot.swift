import BlueZ

/// What one look at the bus found: who owns `org.bluez` and BlueZ's objects.
///
/// Taken once, within the bus timeout, and then read by the BlueZ, adapter and controller
/// checks, so they agree with each other and none of them talks to the bus again.
enum BusSnapshot: Sendable {
    /// No connection: the reason, one line (no socket, refused, no answer in time).
    case unreachable(reason: String)
    case reachable(Reachable)

    struct Reachable: Sendable {
        /// This connection's unique name, proof the bus answered.
        var uniqueName: String
        /// The unique name owning `org.bluez`, `nil` when nobody does (bluetoothd not running).
        var blueZOwner: String?
        /// BlueZ's objects, or why `GetManagedObjects` failed (AccessDenied is a policy problem);
        /// `nil` when there is no BlueZ to ask.
        var objects: Result<ObjectTree, BusCallFailure>?
        /// How systemd runs bluetoothd, or why it did not say; `nil` when no systemd is on the bus.
        var bluetoothUnit: Result<BluetoothUnitFacts, BusCallFailure>? = nil
    }
}

/// A D-Bus call that failed, with the error's name kept apart so the doctor can recognise a
/// policy refusal.
struct BusCallFailure: Error, Sendable, Hashable {
    var name: String?
    var message: String
}
