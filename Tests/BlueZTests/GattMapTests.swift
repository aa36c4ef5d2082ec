@testable import BlueZ
import DBus
import FTMS
import Testing

/// A machine whose firmware is BlueZ (ftms-sim's peripheral mode on a Linux box, or any
/// Linux-based machine) carries two Device Information services: its own, and the one
/// bluetoothd adds with only the PnP ID. The map reads the machine's.
@Suite("GATT map")
struct GattMapTests {
    static let device = "/org/bluez/hci0/dev_00_AA_01_01_00_01"

    static func tree(servicesInOrder: [(path: String, uuid: UInt16, characteristics: [UInt16])]) -> ObjectTree {
        var entries: [DBusDictEntry] = [
            DBusDictEntry(.objectPath(device), .dictionary(key: "s", value: "a{sv}", [
                DBusDictEntry(.string(BlueZNames.device), .properties(["Address": .string("00:AA:01:01:00:01")]))
            ]))
        ]
        for service in servicesInOrder {
            let servicePath = device + "/" + service.path
            entries.append(DBusDictEntry(.objectPath(servicePath), .dictionary(key: "s", value: "a{sv}", [
                DBusDictEntry(.string(BlueZNames.gattService), .properties([
                    "UUID": .string(AssignedNumbers.fullUUID(service.uuid)), "Device": .objectPath(device), "Primary": .bool(true),
                ]))
            ])))
            for (index, characteristic) in service.characteristics.enumerated() {
                entries.append(DBusDictEntry(.objectPath(servicePath + "/char\(String(index, radix: 16))"), .dictionary(key: "s", value: "a{sv}", [
                    DBusDictEntry(.string(BlueZNames.gattCharacteristic), .properties([
                        "UUID": .string(AssignedNumbers.fullUUID(characteristic)), "Service": .objectPath(servicePath),
                        "Flags": .array(element: "s", [.string("read")]),
                    ]))
                ])))
            }
        }
        var tree = ObjectTree()
        tree.load(managedObjects: .dictionary(key: "o", value: "a{sa{sv}}", entries))
        return tree
    }

    /// Whichever of the two services BlueZ happens to list first (paths sort by handle),
    /// the characteristic both carry is read from the machine's own.
    @Test(arguments: [true, false])
    func theMachinesOwnDeviceInformationWins(bluetoothdFirst: Bool) {
        let bluetoothd = (path: bluetoothdFirst ? "service0006" : "service0030", uuid: UInt16(0x180A), characteristics: [UInt16(0x2A50)])
        let machine = (path: bluetoothdFirst ? "service0010" : "service0008", uuid: UInt16(0x180A), characteristics: [UInt16(0x2A29), 0x2A24, 0x2A50])
        let map = GattMap(tree: Self.tree(servicesInOrder: [bluetoothd, machine]), device: Self.device)
        #expect(map[0x2A50]?.hasPrefix(Self.device + "/" + machine.path + "/") == true, "\(map.characteristics)")
        #expect(map[0x2A29]?.hasPrefix(Self.device + "/" + machine.path + "/") == true)
        #expect(map.flags.count == 3)
    }
}
