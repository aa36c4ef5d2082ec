/// The BlueZ client: BlueZ 5.66's D-Bus API as the gateway needs it (contract §2).
///
/// Everything known about adapters, devices and GATT objects comes from one ObjectManager
/// cache (``ObjectTree``), filled by `GetManagedObjects` *after* the signal match rules are in
/// place, and kept current from InterfacesAdded, InterfacesRemoved and PropertiesChanged in
/// wire order. Objects are found by UUID and parent link, never by hard-coded paths
/// (docs/bluez.md, "Objects and signals").
package enum BlueZNames {
    package static let service = "org.bluez"
    package static let objectManager = "org.freedesktop.DBus.ObjectManager"
    package static let properties = "org.freedesktop.DBus.Properties"
    package static let adapter = "org.bluez.Adapter1"
    package static let device = "org.bluez.Device1"
    package static let gattService = "org.bluez.GattService1"
    package static let gattCharacteristic = "org.bluez.GattCharacteristic1"
    package static let gattDescriptor = "org.bluez.GattDescriptor1"
}
