import DBus

/// The object tree: what bluetoothd registers at start, and devices and GATT objects coming
/// and going.
extension BlueZSimulator {
    /// The tree a freshly started bluetoothd has: `/`, `/org/bluez`, the adapters, and every
    /// persisted device with its cached GATT objects but no RSSI. Nothing is announced: a
    /// client learns it from GetManagedObjects.
    ///
    /// `afterRestart`: remembered devices come as 5.66 reloads a device it connected to, with
    /// the GATT database's services as UUIDs (no 0xFE01) and no GATT objects until connected
    /// again. At the simulator's start (`--known`) they keep their GATT objects, so that what a
    /// disconnected device's objects answer can be tested (docs/simulator.md).
    func buildTree(afterRestart: Bool = false) {
        store.removeAll()
        pending = PendingSignals()
        addObject("/", [(BusNames.objectManager, [:]), (BusNames.mock, [:])], announce: false)
        addObject(BusNames.root, [(BusNames.agentManager, [:]), (BusNames.profileManager, [:])], announce: false)
        for adapter in adapters.values.sorted(by: { $0.path < $1.path }) {
            addAdapterObject(adapter, announce: false)
        }
        for device in devices.values.sorted(by: { $0.path < $1.path }) {
            device.exported = false
            device.gattExported = false
            device.characteristics = [:]
            // What was heard lives in bluetoothd's memory; a machine `--known` at the start
            // counts as heard by the bluetoothd that connected it.
            device.heardServiceData = afterRestart ? [:] : device.advertisement.serviceData
            if device.known {
                exportDevice(device, announce: false, withGatt: !afterRestart, uuids: device.resolvedUUIDs)
            }
        }
    }

    func addAdapterObject(_ adapter: AdapterState, announce: Bool) {
        let uuids: [UInt16] = [0x1200, 0x1800, 0x1801, 0x110E, 0x110C]
        addObject(adapter.path, [(BusNames.adapter, [
            "Address": .string(adapter.address), "AddressType": .string("public"), "Name": .string("ftms-gateway"),
            "Alias": .string("ftms-gateway"), "Class": .uint32(0x0C010C), "Powered": .bool(adapter.powered),
            "Discoverable": .bool(false), "DiscoverableTimeout": .uint32(180), "Pairable": .bool(true),
            "PairableTimeout": .uint32(0), "Discovering": .bool(adapter.discovering),
            "UUIDs": .array(element: "s", uuids.map { .string(fullUUID($0)) }),
            "Modalias": .string("usb:v1D6Bp0246d0542"),
            "Roles": .array(element: "s", [.string("central"), .string("peripheral")]),
        ])], announce: announce)
    }

    /// Registers the Device1 object; with `withGatt`, its cached GATT objects too (parents first).
    /// Its UUIDs are `uuids`, else the resolved services with `withGatt` or the advertised ones.
    func exportDevice(_ device: DeviceState, announce: Bool, withGatt: Bool = false, uuids: [String]? = nil) {
        guard !device.exported else { return }
        device.exported = true
        let uuids = uuids ?? (withGatt ? device.resolvedUUIDs : device.advertisedUUIDs)
        addObject(device.path, [(BusNames.device, deviceProperties(device, uuids: uuids))], announce: announce)
        if withGatt { exportGatt(device, announce: announce) }
    }

    func deviceProperties(_ device: DeviceState, uuids: [String]) -> [String: DBusValue] {
        let spec = device.spec
        var properties: [String: DBusValue] = [
            "Address": .string(spec.address), "AddressType": .string(spec.addressType),
            "Alias": .string(spec.name.isEmpty ? spec.address.replacingOccurrences(":", "-") : spec.name),
            "Paired": .bool(false), "Bonded": .bool(false), "Trusted": .bool(false), "Blocked": .bool(false),
            "LegacyPairing": .bool(false), "Connected": .bool(device.connected),
            "UUIDs": .array(element: "s", uuids.map(DBusValue.string)),
            "Adapter": .objectPath(device.adapterPath), "ServicesResolved": .bool(device.resolved),
        ]
        if !spec.name.isEmpty { properties["Name"] = .string(spec.name) }
        if let rssi = device.reportedRSSI { properties["RSSI"] = rssiValue(rssi) }
        let advertisement = device.advertisement
        if !advertisement.manufacturerData.isEmpty {
            let entries = advertisement.manufacturerData.sorted { $0.key < $1.key }.map { DBusDictEntry(.uint16($0.key), .variant(.bytes($0.value))) }
            let dictionary = DBusValue.dictionary(key: "q", value: "v", entries)
            // dbusmock's bug, on request: an array *of* dictionaries (docs/simulator.md, fault bad-types).
            properties["ManufacturerData"] = badTypes ? .array(element: "a{qv}", [dictionary]) : dictionary
        }
        if let serviceData = serviceDataValue(device) { properties["ServiceData"] = serviceData }
        if spec.kind != .plain { properties["AdvertisingFlags"] = .bytes([0x06]) }
        return properties
    }

    /// `ServiceData` as 5.66 lists it (`dev_property_get_service_data`): the full UUID string of
    /// each service to its data as a byte array in a variant (`a{sv}`); absent while nothing
    /// was heard (`dev_property_service_data_exist`).
    func serviceDataValue(_ device: DeviceState) -> DBusValue? {
        guard !device.heardServiceData.isEmpty else { return nil }
        let entries = device.heardServiceData.sorted { $0.key < $1.key }.map { DBusDictEntry(.string(fullUUID($0.key)), .variant(.bytes($0.value))) }
        let dictionary = DBusValue.dictionary(key: "s", value: "v", entries)
        // dbusmock's bug, on request: an array *of* dictionaries (docs/simulator.md, fault bad-types).
        return badTypes ? .array(element: "a{sv}", [dictionary]) : dictionary
    }

    /// An advertisement of `device` was heard: its service data replaces what bluetoothd held,
    /// with PropertiesChanged when that changes it (`device_set_service_data`).
    func heardAdvertisement(_ device: DeviceState) {
        let advertised = device.advertisement.serviceData
        guard device.heardServiceData != advertised else { return }
        device.heardServiceData = advertised
        if device.exported { setProperty(device.path, BusNames.device, "ServiceData", serviceDataValue(device)) }
    }

    /// The machine's GATT application went while it was linked (its app quit before the link
    /// did): it sends Service Changed, and bluetoothd follows it and drops the application's
    /// services from its cache. Their objects go, notify sockets hang up, and `UUIDs` keep
    /// only GAP and GATT; advertisements never add the others back, while `ServiceData` still
    /// follows each one (docs/bluez.md). The next resolved link exports them again.
    func dropServices(_ device: DeviceState) {
        device.streamTask?.cancel()
        device.streamTask = nil
        failPendingWrites(device)
        shutDownAcquired(device: device)
        unexportGatt(device)
        setProperty(device.path, BusNames.device, "UUIDs", .array(element: "s", [0x1800, 0x1801].map { .string(fullUUID($0)) }))
        log("services dropped \(device.spec.name): its server went while linked")
    }

    /// RSSI as BlueZ types it (n), or as a string when badly typed properties are injected.
    func rssiValue(_ rssi: Int) -> DBusValue {
        badTypes ? .string("\(rssi) dBm") : .int16(Int16(clamping: rssi))
    }

    /// Registers services, characteristics and descriptors, parents first, with fresh state.
    /// `Value` is absent until read or notified, as in BlueZ.
    func exportGatt(_ device: DeviceState, announce: Bool) {
        guard !device.gattExported, !device.layout.services.isEmpty else { return }
        device.gattExported = true
        device.characteristics = [:]
        for service in device.layout.services {
            let servicePath = GattLayout.servicePath(device.path, service)
            addObject(servicePath, [(BusNames.gattService, [
                "UUID": .string(fullUUID(service.uuid)), "Device": .objectPath(device.path), "Primary": .bool(true),
                "Includes": .array(element: "o", []),
            ])], announce: announce)
            for characteristic in service.characteristics {
                let path = GattLayout.characteristicPath(servicePath, characteristic)
                var properties: [String: DBusValue] = [
                    "UUID": .string(fullUUID(characteristic.uuid)), "Service": .objectPath(servicePath),
                    "Flags": .array(element: "s", characteristic.flags.map(DBusValue.string)), "MTU": .uint16(247),
                ]
                if characteristic.notifies { properties["Notifying"] = .bool(false) }
                // 5.66: present exactly when the characteristic can be acquired (`notify`).
                if characteristic.flags.contains("notify") { properties["NotifyAcquired"] = .bool(false) }
                addObject(path, [(BusNames.gattCharacteristic, properties)], announce: announce)
                let descriptorPaths = characteristic.descriptors.map { GattLayout.descriptorPath(path, $0) }
                for (descriptor, descriptorPath) in zip(characteristic.descriptors, descriptorPaths) {
                    addObject(descriptorPath, [(BusNames.gattDescriptor, [
                        "UUID": .string(fullUUID(descriptor.uuid)), "Characteristic": .objectPath(path),
                    ])], announce: announce)
                }
                device.characteristics[path] = CharacteristicState(
                    path: path, uuid: characteristic.uuid, flags: characteristic.flags, value: characteristic.value,
                    descriptorPaths: descriptorPaths)
            }
        }
    }

    /// InterfacesRemoved for every GATT object, children first; notify sessions and recorded
    /// writes go with them.
    func unexportGatt(_ device: DeviceState) {
        guard device.gattExported else { return }
        let paths = store.objects.keys.filter { $0.hasPrefix(device.path + "/") }.sorted(by: >)
        for path in paths { removeObject(path) }
        device.characteristics = [:]
        device.gattExported = false
    }

    /// The device object goes (expiry, RemoveDevice, VanishDevice): GATT first, then Device1.
    /// A pending Connect() is cancelled; the machine itself stays in range.
    func removeDevice(_ device: DeviceState, forget: Bool) {
        if let connect = device.pendingConnect {
            device.pendingConnect = nil
            fail(connect, .connectionCanceled)
        }
        cancelTimers(owner: device.path)
        failPendingWrites(device)
        for replier in device.disconnectRepliers { reply(replier) }
        device.disconnectRepliers = []
        device.streamTask?.cancel()
        device.connected = false
        device.resolved = false
        leaveAir(device)
        // Forgotten, its GATT cache goes too: the next connection resolves from scratch, so a
        // `no-resolve` fault (a stale cache) that RemoveDevice cures is cured here.
        if forget { device.plan.scripted.removeAll { $0 == .noResolve } }
        unexportGatt(device)
        removeObject(device.path)
        device.exported = false
        device.reportedRSSI = nil
        device.heardServiceData = [:]
        if forget { device.known = false }
        log("device \(device.spec.name) removed")
    }

    /// GetGattPaths: `"1826"`, `"2ad9"`, `"2ad9/2902"` → path, as the Python fake names them.
    func gattPaths(_ device: DeviceState) -> [String: String] {
        var paths: [String: String] = [:]
        for service in device.layout.services {
            let servicePath = GattLayout.servicePath(device.path, service)
            paths[hex4(service.uuid)] = servicePath
            for characteristic in service.characteristics {
                let path = GattLayout.characteristicPath(servicePath, characteristic)
                paths[hex4(characteristic.uuid)] = path
                for descriptor in characteristic.descriptors {
                    paths[hex4(characteristic.uuid) + "/" + hex4(descriptor.uuid)] = GattLayout.descriptorPath(path, descriptor)
                }
            }
        }
        return paths
    }
}
