import BlueZ
import Clocks
import DBus

/// Takes a ``BusSnapshot`` of the bus at one address, within a time limit.
struct BusProbe: Sendable {
    var address: String
    var timeout: Duration

    func snapshot() async -> BusSnapshot {
        let address = address
        let limit = timeout
        return await withTimeout(limit) { await Self.look(at: address, callTimeout: limit) }
            ?? .unreachable(reason: "no answer from the bus at \(address) within \(Seconds.text(limit))")
    }

    private static func look(at address: String, callTimeout: Duration) async -> BusSnapshot {
        let connection: DBusConnection
        do {
            connection = try await DBusConnection.connect(address: address)
        } catch {
            return .unreachable(reason: "\(error)")
        }
        defer { connection.close() }
        var found = BusSnapshot.Reachable(uniqueName: connection.uniqueName, blueZOwner: nil, objects: nil)
        // Whether bluetoothd comes back after a crash matters most when it is not running now.
        found.bluetoothUnit = await BluetoothUnitFacts.read(on: connection, timeout: callTimeout)
        do {
            found.blueZOwner = try await connection.nameOwner(BlueZNames.service)
        } catch {
            found.objects = .failure(BusCallFailure(error))
            return .reachable(found)
        }
        guard found.blueZOwner != nil else { return .reachable(found) }
        do {
            let reply = try await connection.call(
                destination: BlueZNames.service, path: "/", interface: BlueZNames.objectManager,
                member: "GetManagedObjects", timeout: callTimeout)
            var tree = ObjectTree()
            tree.load(managedObjects: reply.first ?? .array(element: "s", []))
            found.objects = .success(tree)
        } catch {
            found.objects = .failure(BusCallFailure(error))
        }
        return .reachable(found)
    }
}

extension BusCallFailure {
    init(_ error: any Error) {
        if let error = error as? DBusError, case .remote(let name, let message) = error {
            self.init(name: name, message: message)
        } else {
            self.init(name: nil, message: "\(error)")
        }
    }

    /// The bus refused the call by policy: the client may not talk to BlueZ.
    var isAccessDenied: Bool { name == "org.freedesktop.DBus.Error.AccessDenied" }

    var description: String { name.map { "\($0): \(message)" } ?? message }
}
