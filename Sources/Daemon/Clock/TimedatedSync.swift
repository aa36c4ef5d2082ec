import DBus

/// Whether the system clock is synchronised, as systemd-timedated says (`NTPSynchronized` on
/// `org.freedesktop.timedate1`): timedated asks the kernel (`adjtimex`) on the daemon's behalf,
/// so the answer holds whatever time daemon keeps the clock (timesyncd, chrony, ntpd), and it
/// is the one way to read it under the unit's `ProtectClock=`, which denies the daemon
/// `adjtimex` itself. timedated is bus-activated and exits when idle: each read may start it.
///
/// One private connection to the bus at `address` (the system bus; a test's private one), made
/// when first needed and again after it is lost.
actor TimedatedSync {
    static let service = "org.freedesktop.timedate1"
    static let path = "/org/freedesktop/timedate1"

    let address: String
    private var connection: DBusConnection?

    init(address: String) {
        self.address = address
    }

    /// `NTPSynchronized`, or `nil` with the reason when it cannot be read (no timedated, no bus).
    func synchronised() async -> Result<Bool, TimedatedError> {
        do {
            let bus = try await connected()
            let reply = try await bus.call(
                destination: Self.service, path: Self.path, interface: "org.freedesktop.DBus.Properties", member: "Get",
                arguments: [.string(Self.service), .string("NTPSynchronized")], timeout: .seconds(5))
            guard let value = Self.boolean(reply.first) else {
                return .failure(TimedatedError(description: "timedated answered NTPSynchronized with \(reply.first.map { "\($0)" } ?? "nothing")"))
            }
            return .success(value)
        } catch {
            if connection?.isConnected == false { connection = nil }
            return .failure(TimedatedError(description: "timedated's NTPSynchronized is unreadable: \(error)"))
        }
    }

    func close() {
        connection?.close()
        connection = nil
    }

    private func connected() async throws -> DBusConnection {
        if let connection, connection.isConnected { return connection }
        let bus = try await DBusConnection.connect(address: address)
        connection = bus
        return bus
    }

    /// A `b` in its variant, as Properties.Get returns it.
    static func boolean(_ value: DBusValue?) -> Bool? {
        switch value {
        case .variant(let inner)?: boolean(inner)
        case .bool(let flag)?: flag
        default: nil
        }
    }
}

struct TimedatedError: Error, CustomStringConvertible {
    let description: String
}
