/// How long each probe may take. Every probe has one, so a dead bus, a blackholed backend or
/// a wedged controller costs a known number of seconds, never a hung doctor: the probes run
/// side by side, and the slowest of these bounds the whole run (about 5 s by default).
package struct DoctorTimeouts: Sendable, Hashable {
    /// Connecting to the bus, asking who owns `org.bluez` and reading BlueZ's objects.
    package var bus: Duration = .seconds(3)
    /// `bluetoothd --version`.
    package var bluetoothdVersion: Duration = .seconds(2)
    /// One HCI command to one controller (libbluetooth takes milliseconds).
    package var controller: Duration = .seconds(1)
    /// Connecting to a local socket and reading the metrics socket's `hello`.
    package var socket: Duration = .seconds(1)
    /// One HTTP request to the backend, answer included.
    package var backend: Duration = .seconds(3)
    /// Opening, checking and counting the database (another process may hold its lock).
    package var database: Duration = .seconds(5)
    /// With `[fleet]` on, how long the floor check reads the gateways' presences after the MQTT
    /// check: a heartbeat (3 s) and a bit, so each live gateway sends a fresh one.
    package var floorListen: Duration = .seconds(4)

    package init() {}
}
