import BlueZ
import DBus
@testable import Daemon
import Testing

/// What the floor is told a gateway hears (`MachineSighting.all`): a machine BlueZ reports an
/// RSSI for, 127 ("not available") included, and nothing it keeps only in its cache.
@Suite("Daemon: machine sightings for the floor")
struct MachineSightingTests {
    /// One SF bike on hci0, with `rssi` as BlueZ's RSSI property (none when nil).
    private func tree(rssi: DBusValue?) -> ObjectTree {
        var properties: [String: DBusValue] = [
            "Address": .string("00:aa:01:02:00:02"), "Name": .string("SF-Bike-0001"), "Adapter": .objectPath("/org/bluez/hci0"),
            "UUIDs": .array(element: "s", [.string("0000fe01-0000-1000-8000-00805f9b34fb")]),
        ]
        if let rssi { properties["RSSI"] = rssi }
        var tree = ObjectTree()
        tree.load(managedObjects: .dictionary(key: "o", value: "a{sa{sv}}", [
            DBusDictEntry(.objectPath("/org/bluez/hci0/dev_00_AA_01_02_00_02"), .dictionary(key: "s", value: "a{sv}", [
                DBusDictEntry(.string(BlueZNames.device), .properties(properties)),
            ])),
        ]))
        return tree
    }

    @Test func aMachineHeardWithItsSignalIsReportedWithIt() {
        #expect(MachineSighting.all(in: tree(rssi: .int16(-61)), filter: MachineFilter())
            == [MachineSighting(address: "00:AA:01:02:00:02", name: "SF-Bike-0001", rssi: -61)])
    }

    /// btvirt (and some controllers) always say 127: the VM's gateways heard the bike and told
    /// the floor nothing, so neither took it.
    @Test func aMachineHeardWithoutASignalIsHeardAtTheWeakest() {
        #expect(MachineSighting.all(in: tree(rssi: .int16(127)), filter: MachineFilter())
            == [MachineSighting(address: "00:AA:01:02:00:02", name: "SF-Bike-0001", rssi: MachineSighting.unknownSignal)])
    }

    /// BlueZ invalidates RSSI when discovery stops: a cached machine is not heard.
    @Test func aMachineOnlyInTheCacheIsNotHeard() {
        #expect(MachineSighting.all(in: tree(rssi: nil), filter: MachineFilter()).isEmpty)
    }
}
