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
        // Larger services first, then BlueZ's order (paths name handles); the first copy wins.
        let ranked = found.enumerated().sorted { a, b in
            let (sizeA, sizeB) = (perService[a.element.service, default: 0], perService[b.element.service, default: 0])
            return sizeA != sizeB ? sizeA > sizeB : a.offset < b.offset
        }
        for (_, entry) in ranked where characteristics[entry.short] == nil {
            characteristics[entry.short] = entry.path
            flags[entry.path] = entry.flags
        }
    }

    subscript(_ uuid: UInt16) -> String? { characteristics[uuid] }
    subscript(_ characteristic: Characteristic) -> String? { characteristics[characteristic.rawValue] }
}
