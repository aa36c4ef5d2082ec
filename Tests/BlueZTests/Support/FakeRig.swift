import BlueZ
import BlueZTesting
import DBus
import Foundation
import Testing

/// A private bus, the dbusmock BlueZ with one adapter and one machine, and a started client:
/// what every BlueZ test needs before it can say anything.
struct FakeRig {
    let bus: PrivateBus
    let fake: FakeBlueZ
    let connection: DBusConnection
    let client: BlueZClient
    let device: String

    static let address = "C0:11:22:33:44:01"

    init(kind: String = "bike", name: String = "SF-Bike-0001") async throws {
        bus = try PrivateBus()
        fake = try await FakeBlueZ(bus: bus)
        try await fake.addAdapter("hci0")
        device = try await fake.addMachine(address: Self.address, name: name, kind: kind)
        connection = try await DBusConnection.connect(address: bus.address)
        client = BlueZClient(connection: connection)
        try await client.start()
    }

    func stop() {
        connection.close()
        fake.stop()
        bus.stop()
    }

    func gattPath(_ key: String) async throws -> String {
        let paths = try await fake.mock("GetGattPaths", [.string(device)]).first?.stringDictionary ?? [:]
        return try #require(paths[key]?.string, "no \(key) in \(paths.keys.sorted())")
    }

    /// Every value written to the Control Point so far, oldest first.
    func controlPointWrites() async throws -> [[UInt8]] {
        try await fake.mock("GetWrites", [.string(try await gattPath("2ad9"))]).first?.array?.compactMap(\.bytes) ?? []
    }

    func clearControlPointWrites() async throws {
        try await fake.mock("ClearWrites", [.string(try await gattPath("2ad9"))])
    }
}
