import DBus

/// A machine as discovery saw it.
public struct DiscoveredMachine: Sendable, Equatable, Codable {
    public var name: String
    public var address: String
    public var kind: MachineKind
    /// dBm; `nil` when BlueZ has none (RSSI is invalidated when discovery stops) or reports
    /// 127, HCI's "RSSI not available", which real controllers (and btvirt) send.
    public var rssi: Int?
    /// The Device1 object path.
    public var path: String
    /// The adapter object path (`/org/bluez/hci0`).
    public var adapter: String

    /// Reads a Device1's properties; `nil` when they are too malformed to identify a machine.
    public init?(path: String, properties: ObjectTree.Properties) {
        guard let address = properties["Address"]?.string else { return nil }
        let name = properties["Name"]?.string ?? properties["Alias"]?.string ?? address
        self.name = name
        self.address = address
        self.kind = MachineKind(name: name)
        self.rssi = properties["RSSI"]?.integer.flatMap { $0 == Self.rssiNotAvailable ? nil : $0 }
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

extension String {
    fileprivate var withLeadingSlash: String { hasPrefix("/") ? self : "/" + self }
}
