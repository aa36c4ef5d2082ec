import DBus
import FTMS

/// A device's GATT characteristics by 16-bit UUID, found through their `Service` links (BlueZ
/// names objects after ATT handles, which differ between machines).
struct GattMap: Sendable {
    var characteristics: [UInt16: String] = [:]
    /// Each characteristic's `Flags` ("notify", "indicate", …), by path.
    var flags: [String: [String]] = [:]

    /// A characteristic found in two services is taken from the service with more
    /// characteristics: bluetoothd on a machine that runs BlueZ adds its own Device Information
    /// service (PnP ID alone) beside the machine's, and a firmware may carry a stub copy too.
    init(tree: ObjectTree, device: String) {
        var found: [(short: UInt16, path: String, service: String, flags: [String])] = []
        var perService: [String: Int] = [:]
        for path in tree.paths(with: BlueZNames.gattCharacteristic) where path.hasPrefix(device + "/") {
            guard let properties = tree.properties(path, BlueZNames.gattCharacteristic),
                let service = properties["Service"]?.string,
                tree.properties(service, BlueZNames.gattService)?["Device"]?.string == device,
                let uuid = properties["UUID"]?.string,
                let short = AssignedNumbers.shortUUID(parsing: uuid)
            else { continue }
            found.append((short, path, service, properties["Flags"]?.strings ?? []))
            perService[service, default: 0] += 1
        }
        var chosenService: [UInt16: String] = [:]
        for entry in found {
            if let current = chosenService[entry.short], perService[current, default: 0] >= perService[entry.service, default: 0] {
                continue
            }
            chosenService[entry.short] = entry.service
            characteristics[entry.short] = entry.path
        }
        for entry in found where characteristics[entry.short] == entry.path { flags[entry.path] = entry.flags }
    }

    subscript(_ uuid: UInt16) -> String? { characteristics[uuid] }
    subscript(_ characteristic: Characteristic) -> String? { characteristics[characteristic.rawValue] }
}
