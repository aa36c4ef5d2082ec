import DBus
package import FTMS

/// A machine as discovery saw it.
package struct DiscoveredMachine: Sendable, Equatable {
    package var name: String
    package var address: String
    /// From the advertised name; `nil` until a link shows a generic FTMS machine's data.
    package var type: MachineType?
    /// dBm; `nil` when BlueZ has none (RSSI is invalidated when discovery stops) or reports
    /// 127, HCI's "RSSI not available", which real controllers (and btvirt) send.
    package var rssi: Int?
    /// Whether BlueZ reports an RSSI at all, 127 included: the machine is heard now (BlueZ
    /// invalidates RSSI when discovery stops), even when its controller cannot say how well.
    package var heard: Bool
    /// The Device1 object path.
    package var path: String
    /// The adapter object path (`/org/bluez/hci0`).
    package var adapter: String

    /// Reads a Device1's properties; `nil` when they are too malformed to identify a machine.
    package init?(path: String, properties: ObjectTree.Properties) {
        guard let address = properties["Address"]?.string else { return nil }
        let name = properties["Name"]?.string ?? properties["Alias"]?.string ?? address
        self.name = name
        self.address = address
        self.type = MachineType(machineName: name)
        self.rssi = properties["RSSI"]?.integer.flatMap { $0 == Self.rssiNotAvailable ? nil : $0 }
        self.heard = properties["RSSI"]?.integer != nil
        self.path = path
        self.adapter = properties["Adapter"]?.string ?? String(path.split(separator: "/").prefix(3).joined(separator: "/")).withLeadingSlash
    }

    /// HCI's value for "RSSI not available" (Core 5.3, Vol 4, Part E, 7.7.65.2).
    static let rssiNotAvailable = 127

    /// The device's advertised service UUIDs (a badly typed list counts as none).
    static func uuids(_ properties: ObjectTree.Properties) -> [String] {
        properties["UUIDs"]?.strings ?? []
    }
}

/// `scan --json`'s line: `kind` is `bike`, `rower` or `unknown`.
extension DiscoveredMachine: Codable {
    private enum CodingKeys: String, CodingKey {
        case name, address, kind, rssi, path, adapter
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        address = try container.decode(String.self, forKey: .address)
        type = try container.decodeIfPresent(String.self, forKey: .kind).flatMap(MachineType.init(rawValue:))
        rssi = try container.decodeIfPresent(Int.self, forKey: .rssi)
        heard = rssi != nil
        path = try container.decode(String.self, forKey: .path)
        adapter = try container.decode(String.self, forKey: .adapter)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(address, forKey: .address)
        try container.encode(type?.rawValue ?? "unknown", forKey: .kind)
        try container.encodeIfPresent(rssi, forKey: .rssi)
        try container.encode(path, forKey: .path)
        try container.encode(adapter, forKey: .adapter)
    }
}

extension String {
    fileprivate var withLeadingSlash: String { hasPrefix("/") ? self : "/" + self }
}
