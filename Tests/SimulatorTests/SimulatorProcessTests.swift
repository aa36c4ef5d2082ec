import Testing

/// Every test that runs `ftms-sim` as a process on a private dbus-daemon. Serialized: the
/// machine has two cores, and each test measures orderings and timings of real processes.
@Suite("ftms-sim as a real process", .serialized)
enum SimulatorProcessTests {}
