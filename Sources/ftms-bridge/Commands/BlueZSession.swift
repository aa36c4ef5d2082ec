import ArgumentParser
import BlueZ
import DBus
import Foundation

/// What every Bluetooth command does around its work: connect to the system bus (or
/// `DBUS_SYSTEM_BUS_ADDRESS`), start the BlueZ client, and turn any failure into one line on
/// stderr and exit status 1.
func withBlueZ(command: String, _ body: (BlueZClient) async throws -> Void) async throws {
    let address = DBusConnection.systemBusAddress(environment: ProcessInfo.processInfo.environment)
    do {
        let connection = try await DBusConnection.connect(address: address)
        defer { connection.close() }
        let client = BlueZClient(connection: connection)
        try await client.start()
        try await body(client)
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
