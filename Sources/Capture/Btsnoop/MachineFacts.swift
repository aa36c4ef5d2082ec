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

    var header: CaptureHeader {
        let name = deviceName ?? address.flatMap { advertisedNames.name(of: $0) }
        return CaptureHeader(
            name: name, address: address?.description, manufacturer: manufacturer, model: model,
            type: name.flatMap { MachineType(machineName: $0) } ?? dataType,
            feature: feature, start: start)
    }
}
