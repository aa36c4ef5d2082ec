import ArgumentParser
import BlueZ
import DBus
import Foundation

/// What every Bluetooth command does around its work: connect to the system bus (or
/// `DBUS_SYSTEM_BUS_ADDRESS`), start the BlueZ client, and turn any failure into one line on
/// stderr and exit status 1. SIGINT and SIGTERM cancel `body`, which gives back what it holds
/// before the bus connection closes (``untilStopSignal(_:)``).
func withBlueZ(command: String, _ body: @escaping @Sendable (BlueZClient) async throws -> Void) async throws {
    let address = DBusConnection.systemBusAddress(environment: ProcessInfo.processInfo.environment)
    do {
        try await untilStopSignal {
            let connection = try await DBusConnection.connect(address: address)
            defer { connection.close() }
            let client = BlueZClient(connection: connection)
            try await client.start()
            try await body(client)
        }
    } catch let error as DBusError {
        printError("\(command): \(error)")
        throw ExitCode(1)
    } catch let error as BlueZError {
        printError("\(command): \(error)")
        throw ExitCode(1)
    } catch let error as LinkError {
        printError("\(command): \(error)")
        throw ExitCode(1)
    }
}
