import FTMS

/// What a btsnoop capture reveals about its machine, gathered as records go by and turned
/// into a ``CaptureHeader`` on demand.
struct MachineFacts {
    /// The first link's peer (or the filtered address): the machine the header describes.
    var address: BluetoothAddress?
    var advertisedNames = AdvertisedNames()
    var deviceName: String?
    var manufacturer: String?
    var model: String?
    var feature: [UInt8]?
    var dataType: MachineType?
    var start: Duration?

    /// Takes what a read of a Device Name, Device Information or Feature value says.
    mutating func learn(read uuid: AttributeUUID, _ value: UnsafeRawBufferPointer) {
        switch uuid.short {
        case 0x2A00: deviceName = deviceName ?? Self.text(value)
        case 0x2A29: manufacturer = manufacturer ?? Self.text(value)
        case 0x2A24: model = model ?? Self.text(value)
        case 0x2ACC: feature = feature ?? Array(value)
        default: break
        }
    }

    /// GATT strings are UTF-8, sometimes NUL-padded by firmware.
    private static func text(_ value: UnsafeRawBufferPointer) -> String? {
        let end = value.firstIndex(of: 0) ?? value.count
        return end == 0 ? nil : String(decoding: UnsafeRawBufferPointer(rebasing: value[0..<end]), as: UTF8.self)
    }

    /// The data characteristic decides the type: a name read can be the peer's. On the machine's
    /// side of a link between two bluetoothd hosts, the machine's host reads the gateway's GAP
    /// name too, and a gateway adapter whose alias looks like a machine's (the VM: "SF-Bike-9999"
    /// on a rower's capture) would otherwise turn a rower into a bike. A read name that names
    /// another kind of machine than the data is not taken.
    var header: CaptureHeader {
        let read = deviceName.flatMap { name in
            dataType == nil || MachineType(machineName: name).map { $0 == dataType } ?? true ? name : nil
        }
        let name = read ?? address.flatMap { advertisedNames.name(of: $0) }
        return CaptureHeader(
            name: name, address: address?.description, manufacturer: manufacturer, model: model,
            type: dataType ?? name.flatMap { MachineType(machineName: $0) },
            feature: feature, start: start)
    }
}
