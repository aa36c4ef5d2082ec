import DBus
import FTMS

/// A device's GATT characteristics by 16-bit UUID, found through their `Service` links (BlueZ
/// names objects after ATT handles, which differ between machines).
struct GattMap: Sendable {
    var characteristics: [UInt16: String] = [:]
    /// Each characteristic's `Flags` ("notify", "indicate", …), by path.
    var flags: [String: [String]] = [:]

    init(tree: ObjectTree, device: String) {
        for path in tree.paths(with: BlueZNames.gattCharacteristic) where path.hasPrefix(device + "/") {
            guard let properties = tree.properties(path, BlueZNames.gattCharacteristic),
                let service = properties["Service"]?.string,
                tree.properties(service, BlueZNames.gattService)?["Device"]?.string == device,
                let uuid = properties["UUID"]?.string,
                let short = AssignedNumbers.shortUUID(parsing: uuid)
            else { continue }
            characteristics[short] = path
            flags[path] = properties["Flags"]?.strings ?? []
        }
    }

    subscript(_ uuid: UInt16) -> String? { characteristics[uuid] }
    subscript(_ characteristic: Characteristic) -> String? { characteristics[characteristic.rawValue] }
}
