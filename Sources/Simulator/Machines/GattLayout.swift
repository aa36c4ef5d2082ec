import FTMS

/// A machine's GATT database as BlueZ 5.66 exports it after browsing, and what it advertises.
///
/// ATT handles, and therefore object paths (`service000f/char0018`), are those of the Python
/// fake, so a test can run against either peer. GAP (0x1800, handles 5–9) is claimed by
/// bluetoothd's gap plugin and not exported, as in 5.66.
struct GattLayout: Sendable {
    struct Descriptor: Sendable {
        let handle: UInt16
        let uuid: UInt16
    }

    struct Characteristic: Sendable {
        /// The declaration handle, which names the object; the value handle is one more.
        let handle: UInt16
        let uuid: UInt16
        let flags: [String]
        /// What a read returns.
        let value: [UInt8]
        let descriptors: [Descriptor]

        var notifies: Bool { flags.contains("notify") || flags.contains("indicate") }
    }

    struct Service: Sendable {
        let handle: UInt16
        let uuid: UInt16
        let characteristics: [Characteristic]
    }

    let services: [Service]

    static let clientCharacteristicConfiguration: UInt16 = 0x2902

    /// Empty for devices without GATT.
    init(kind: MachineSpec.Kind) {
        guard kind.hasGatt else {
            services = []
            return
        }
        let rower = kind == .rower
        let features = rower
            ? FitnessMachineFeature(fitnessMachineFeatures: 0x0000_52A4, targetSettingFeatures: 0x0000_0004)
            : FitnessMachineFeature(fitnessMachineFeatures: 0x0000_5286, targetSettingFeatures: 0x0000_200C)
        var ftms = [
            Characteristic(handle: 0x0010, uuid: 0x2ACC, flags: ["read"], value: features.encoded(), descriptors: []),
            Characteristic(handle: 0x0012, uuid: rower ? 0x2AD1 : 0x2AD2, flags: ["notify"], value: [], descriptors: [Descriptor(handle: 0x0014, uuid: 0x2902)]),
            Characteristic(handle: 0x0015, uuid: 0x2ADA, flags: ["notify"], value: [], descriptors: [Descriptor(handle: 0x0017, uuid: 0x2902)]),
            Characteristic(handle: 0x0018, uuid: 0x2AD9, flags: ["write", "indicate"], value: [], descriptors: [Descriptor(handle: 0x001A, uuid: 0x2902)]),
            Characteristic(
                handle: 0x001B, uuid: 0x2AD6, flags: ["read"],
                value: SupportedRange(kind: .resistanceLevel, minimum: 1, maximum: 24, increment: 1).encoded(), descriptors: []),
        ]
        if !rower {
            ftms.append(Characteristic(
                handle: 0x001D, uuid: 0x2AD8, flags: ["read"],
                value: SupportedRange(kind: .power, minimum: 10, maximum: 1000, increment: 5).encoded(), descriptors: []))
        }
        let (manufacturer, model) = switch kind {
        case .rower: ("SolidFocus", "SF-Rower-M1")
        case .genericFTMS: ("Generic Fitness", "GF-Bike-2")
        default: ("SolidFocus", "SF-Bike-M1")
        }
        services = [
            Service(handle: 0x0001, uuid: 0x1801, characteristics: [
                Characteristic(handle: 0x0002, uuid: 0x2A05, flags: ["indicate"], value: [], descriptors: [Descriptor(handle: 0x0004, uuid: 0x2902)])
            ]),
            Service(handle: 0x000A, uuid: 0x180A, characteristics: [
                Characteristic(handle: 0x000B, uuid: 0x2A29, flags: ["read"], value: Array(manufacturer.utf8), descriptors: []),
                Characteristic(handle: 0x000D, uuid: 0x2A24, flags: ["read"], value: Array(model.utf8), descriptors: []),
            ]),
            Service(handle: 0x000F, uuid: 0x1826, characteristics: ftms),
        ]
    }

    static func servicePath(_ device: String, _ service: Service) -> String {
        device + "/service" + hex4(service.handle)
    }

    static func characteristicPath(_ servicePath: String, _ characteristic: Characteristic) -> String {
        servicePath + "/char" + hex4(characteristic.handle)
    }

    static func descriptorPath(_ characteristicPath: String, _ descriptor: Descriptor) -> String {
        characteristicPath + "/desc" + hex4(descriptor.handle)
    }

    /// Every characteristic with its object path under `device`.
    func characteristics(under device: String) -> [(path: String, characteristic: Characteristic)] {
        services.flatMap { service in
            let servicePath = Self.servicePath(device, service)
            return service.characteristics.map { (Self.characteristicPath(servicePath, $0), $0) }
        }
    }

    /// 0x2ACC's target setting features, which decide what the Control Point supports.
    var targetSettingFeatures: UInt32 {
        let value = services.flatMap(\.characteristics).first(where: { $0.uuid == 0x2ACC }).map(\.value) ?? []
        return value.withUnsafeBytes { FitnessMachineFeature(decoding: $0) }.targetSettingFeatures
    }
}

/// What a device puts in its advertisements.
struct Advertisement: Sendable {
    let uuids: [UInt16]
    let serviceData: [UInt16: [UInt8]]
    let manufacturerData: [UInt16: [UInt8]]

    init(kind: MachineSpec.Kind) {
        switch kind {
        case .bike, .rower:
            uuids = [0xFE01, 0x1826]
            // FTMS service data: flags 0x01 (available), machine type bit 5 indoor bike / bit 4 rower.
            serviceData = [0x1826: [0x01, kind == .bike ? 0x20 : 0x10, 0x00]]
            manufacturerData = [0xFFFF: [0x53, 0x46, kind == .bike ? 0x01 : 0x02]]
        case .genericFTMS:
            uuids = [0x1826]
            serviceData = [0x1826: [0x01, 0x20, 0x00]]
            manufacturerData = [:]
        case .nameOnly, .plain:
            uuids = []
            serviceData = [:]
            manufacturerData = [:]
        }
    }

    /// The UUIDs BlueZ lists once services are resolved: the advertised ones plus every
    /// primary service, GAP's included (it is browsed, though not exported).
    static func resolvedUUIDs(advertised: [UInt16], layout: GattLayout) -> [UInt16] {
        guard !layout.services.isEmpty else { return advertised }
        return Array(Set(layout.services.map(\.uuid) + [0x1800, 0x1801]))
    }
}

func hex4(_ value: UInt16) -> String {
    hexByte(UInt8(value >> 8)) + hexByte(UInt8(value & 0xFF))
}

/// The lowercase 128-bit form BlueZ uses for every UUID.
func fullUUID(_ short: UInt16) -> String {
    AssignedNumbers.fullUUID(short)
}
