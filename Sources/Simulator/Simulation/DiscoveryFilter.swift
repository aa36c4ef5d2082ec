import DBus

/// One client's `SetDiscoveryFilter`, validated as 5.66's `parse_discovery_filter_dict` does.
struct DiscoveryFilter: Sendable, Equatable {
    /// Lower-case 128-bit UUIDs; empty matches any.
    var uuids: [String] = []
    var rssi: Int?
    var pathloss: Int?
    var transport = "auto"
    var duplicateData = false
    var discoverable = false
    var pattern: String?

    static let keys = ["UUIDs", "RSSI", "Pathloss", "Transport", "DuplicateData", "Discoverable", "Pattern"]

    /// `nil` for an empty dictionary, which clears the client's filter.
    static func parse(_ value: DBusValue) throws(BusFailure) -> DiscoveryFilter? {
        guard case .dictionary("s", "v", let entries) = value else { throw .invalidArguments }
        guard !entries.isEmpty else { return nil }
        var filter = DiscoveryFilter()
        for entry in entries {
            guard let key = entry.key.string, case .variant(let inner) = entry.value else { throw .invalidArguments }
            switch (key, inner) {
            case ("UUIDs", .array("s", let values)):
                for value in values {
                    guard let text = value.string, let uuid = Self.normalised(text) else { throw .invalidArguments }
                    filter.uuids.append(uuid)
                }
            case ("RSSI", .int16(let rssi)):
                guard (-127...20).contains(rssi) else { throw .invalidArguments }
                filter.rssi = Int(rssi)
            case ("Pathloss", .uint16(let pathloss)): filter.pathloss = Int(pathloss)
            case ("Transport", .string(let transport)):
                guard ["auto", "bredr", "le"].contains(transport) else { throw .invalidArguments }
                filter.transport = transport
            case ("DuplicateData", .bool(let flag)): filter.duplicateData = flag
            case ("Discoverable", .bool(let flag)): filter.discoverable = flag
            case ("Pattern", .string(let pattern)): filter.pattern = pattern
            default: throw .invalidArguments
            }
        }
        if filter.rssi != nil, filter.pathloss != nil { throw .invalidArguments }
        return filter
    }

    /// `bt_string2uuid`'s forms: 128-bit, or 16/32-bit hex on the Bluetooth base.
    static func normalised(_ text: String) -> String? {
        let lower = text.lowercased()
        let hex = lower.hasPrefix("0x") ? String(lower.dropFirst(2)) : lower
        if hex.count == 4 || hex.count == 8, hex.allSatisfy(\.isHexDigit) {
            return String(repeating: "0", count: 8 - hex.count) + hex + "-0000-1000-8000-00805f9b34fb"
        }
        let groups = lower.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.map(\.count) == [8, 4, 4, 4, 12], groups.allSatisfy({ $0.allSatisfy(\.isHexDigit) }) else { return nil }
        return lower
    }

    /// Whether an advertisement passes (`is_filter_match`): a UUID in the service lists, an
    /// RSSI at or above the threshold, a name or address starting with the pattern, LE transport.
    func matches(address: String, name: String?, uuids advertised: [String], rssi heard: Int) -> Bool {
        if transport == "bredr" { return false }
        if !uuids.isEmpty, !uuids.contains(where: advertised.contains) { return false }
        if let rssi, heard < rssi { return false }
        if let pattern, !pattern.isEmpty, !address.hasPrefix(pattern), name?.hasPrefix(pattern) != true { return false }
        return true
    }

    /// RSSI and Pathloss filters turn off BlueZ's 8 dBm change threshold for RSSI updates.
    var reportsEveryRSSI: Bool { rssi != nil || pathloss != nil }
}
